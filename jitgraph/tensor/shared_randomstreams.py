"""Theano's ``theano.tensor.shared_randomstreams``: re-exports :mod:`jitgraph.random.streams`."""

from jitgraph.random.random_state import RandomStateSharedVariable  # noqa: F401
from jitgraph.random.streams import RandomStreams  # noqa: F401

__all__ = ["RandomStreams", "RandomStateSharedVariable"]
