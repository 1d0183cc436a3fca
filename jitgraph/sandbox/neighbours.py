"""``theano.sandbox.neighbours``: ``images2neibs``/``neibs2images``, moved by Theano to
``theano.tensor.nnet.neighbours`` (:mod:`jitgraph.tensor.neighbours`)."""

from jitgraph.tensor.neighbours import Images2Neibs, images2neibs, neibs2images

__all__ = ["Images2Neibs", "images2neibs", "neibs2images"]
