"""Theano's ``theano.tensor.raw_random``: re-exports :mod:`jitgraph.random.raw` (NumPy
``RandomState`` draws as graph ops)."""

from jitgraph.random.raw import *  # noqa: F401,F403
from jitgraph.random.raw import __all__  # noqa: F401
