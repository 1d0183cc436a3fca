"""Theano's ``theano.sandbox.rng_mrg``: re-exports :mod:`jitgraph.random` (MRG31k3p streams)."""

from jitgraph.random.mrg31k3p import M1, M2  # noqa: F401
from jitgraph.random.mrg_op import MRGUniform as mrg_uniform  # noqa: F401
from jitgraph.random.mrg_streams import MRG_RandomStreams, guess_n_streams  # noqa: F401
from jitgraph.random.undefined import undefined_grad  # noqa: F401

__all__ = ["MRG_RandomStreams", "guess_n_streams", "mrg_uniform", "undefined_grad", "M1", "M2"]
