"""``theano.tensor.nnet.corr``: the im2col + BLAS correlation ops (defined in
:mod:`jitgraph.tensor.corr`)."""

from jitgraph.tensor.corr import CorrMM, CorrMM_gradInputs, CorrMM_gradWeights

__all__ = ["CorrMM", "CorrMM_gradInputs", "CorrMM_gradWeights"]
