"""``theano.tensor.nnet.corr3d``: the 3-d im2col + BLAS correlation ops (defined in
:mod:`jitgraph.tensor.corr`)."""

from jitgraph.tensor.corr import Corr3dMM, Corr3dMM_gradInputs, Corr3dMM_gradWeights

__all__ = ["Corr3dMM", "Corr3dMM_gradInputs", "Corr3dMM_gradWeights"]
