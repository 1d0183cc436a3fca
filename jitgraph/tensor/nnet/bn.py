"""``theano.tensor.nnet.bn`` (defined in :mod:`jitgraph.tensor.batchnorm`)."""

from jitgraph.tensor.batchnorm import (batch_normalization, batch_normalization_test,
                                       batch_normalization_train)

__all__ = ["batch_normalization", "batch_normalization_test", "batch_normalization_train"]
