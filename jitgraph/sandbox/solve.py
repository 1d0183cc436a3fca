"""``theano.sandbox.solve``: ``solve``, moved by Theano to ``theano.tensor.slinalg``."""

from jitgraph.tensor.slinalg import solve

__all__ = ["solve"]
