"""``theano.tensor.nnet.neighbours`` (defined in :mod:`jitgraph.tensor.neighbours`)."""

from jitgraph.tensor.neighbours import Images2Neibs, Neibs2ImagesAdd, images2neibs, neibs2images

__all__ = ["Images2Neibs", "Neibs2ImagesAdd", "images2neibs", "neibs2images"]
