"""Theano's ``theano.tensor.shared_randomstreams``: re-exports :mod:`jitgraph.random.streams`."""

from jitgraph.compile.sharedvalue import SharedVariable, shared, shared_constructor  # noqa: F401
from jitgraph.random.random_state import RandomStateSharedVariable, randomstate_constructor
from jitgraph.random.streams import RandomStreams

__all__ = ["RandomStreams", "RandomStateSharedVariable", "randomstate_constructor",
           # Theano's module imported these for its own use; scripts reach them through it
           "SharedVariable", "shared", "shared_constructor"]
