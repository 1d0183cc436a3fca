"""``theano.tensor.signal``: pooling (:mod:`.pool`) and the signal-processing ``conv2d``
(:mod:`.conv`)."""

from jitgraph.tensor.signal import conv, pool

__all__ = ["conv", "pool"]
