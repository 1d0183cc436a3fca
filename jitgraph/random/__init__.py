"""Random numbers in graphs, drawing exactly Theano 1.0.5's numbers.

* :class:`~jitgraph.random.mrg_streams.MRG_RandomStreams` (Theano's
  ``theano.sandbox.rng_mrg``): the MRG31k3p generator (:mod:`.mrg31k3p`) with many streams,
  drawn by the ``mrg_uniform`` op (:mod:`.mrg_op`), compiled by the backends.
* :class:`~jitgraph.random.streams.RandomStreams` (``theano.tensor.shared_randomstreams``):
  one shared ``numpy.random.RandomState`` per draw, drawn by ``RandomFunction``
  (:mod:`.raw_op`, Theano's ``raw_random``) as a NumPy ``perform`` node.

Importing the package registers its rewrites (:mod:`.rewrites`: the in-place draws). The
parameters of the MRG draws are wrapped in ``jitgraph.gradient``'s ``undefined_grad``.
"""

from jitgraph.tensor.core.grad_ops import undefined_grad
from jitgraph.random import rewrites as _rewrites  # noqa: F401  (registers the rewrites)
from jitgraph.random.mrg_streams import MRG_RandomStreams, guess_n_streams
from jitgraph.random.streams import RandomStreams

__all__ = ["MRG_RandomStreams", "RandomStreams", "guess_n_streams", "undefined_grad"]
