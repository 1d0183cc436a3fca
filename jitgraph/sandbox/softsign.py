"""``theano.sandbox.softsign``: ``softsign``, moved by Theano to ``theano.tensor.nnet``."""

from jitgraph.tensor.nnet import softsign

__all__ = ["softsign"]
