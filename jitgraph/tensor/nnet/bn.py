"""``theano.tensor.nnet.bn``: batch normalization as graphs (:mod:`jitgraph.tensor.batchnorm`)
and as single ops with their expanding rewrites (:mod:`jitgraph.tensor.batchnorm_ops`)."""

from __future__ import annotations

from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.theano_api import local_optimizer, register_specialize_device
from jitgraph.scalar import add, mul, sub, true_div
from jitgraph.scalar.composite import Composite
from jitgraph.scalar.var import as_common_dtype
from jitgraph.tensor.batchnorm import (batch_normalization, batch_normalization_test,
                                       batch_normalization_train)
from jitgraph.tensor.batchnorm_ops import (AbstractBatchNormInference, AbstractBatchNormTrain,
                                           AbstractBatchNormTrainGrad, bn_groupopt,
                                           local_abstract_batch_norm_inference,
                                           local_abstract_batch_norm_train,
                                           local_abstract_batch_norm_train_grad)
from jitgraph.tensor.conversion import as_tensor_variable
from jitgraph.tensor.type import TensorType


class BNComposite(Composite):
    """The scalar op ``(x - mean) / std * gamma + beta`` of dtype ``dtype`` (inputs x, mean,
    std, gamma, beta), to apply elementwise: ``Elemwise(BNComposite('float64'))``."""

    def __init__(self, dtype: str) -> None:
        from jitgraph.scalar.type import get_scalar_type

        self.dtype = dtype
        x, mean, std, gamma, beta = (get_scalar_type(dtype)() for _ in range(5))
        super().__init__([x, mean, std, gamma, beta],
                         [add(mul(true_div(sub(x, mean), std), gamma), beta)])


__all__ = ["batch_normalization", "batch_normalization_test", "batch_normalization_train",
           "AbstractBatchNormInference", "AbstractBatchNormTrain", "AbstractBatchNormTrainGrad",
           "BNComposite", "bn_groupopt", "local_abstract_batch_norm_inference",
           "local_abstract_batch_norm_train", "local_abstract_batch_norm_train_grad",
           # Theano's module imported these for its own use; scripts reach them through it
           "Apply", "Composite", "Op", "TensorType", "add", "as_common_dtype",
           "as_tensor_variable", "copy_stack_trace", "local_optimizer", "mul",
           "register_specialize_device", "sub", "true_div"]
