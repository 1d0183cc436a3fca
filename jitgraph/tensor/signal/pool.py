"""``theano.tensor.signal.pool`` (defined in :mod:`jitgraph.tensor.pool`)."""

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.c_code import ParamsType
from jitgraph.graph.enum_type import EnumList
from jitgraph.graph.gradient_types import DisconnectedType
from jitgraph.graph.openmp_op import OpenMPOp
from jitgraph.scalar.type import bool_ as bool_t
from jitgraph.tensor.pool import (AveragePoolGrad, DownsampleFactorMaxGradGrad, MaxPoolGrad,
                                  MaxPoolRop, Pool, PoolGrad, max_pool_2d_same_size, pool_2d,
                                  pool_3d)

#: the pooling modes as constants (``PoolingMode_t.fromalias('average_exc_pad')`` -> 3), in
#: Theano's numbering; the ops themselves take the mode by its alias
PoolingMode_t = EnumList(("POOLING_MAX", "max"), ("POOLING_SUM", "sum"),  # noqa: N816
                         ("POOLING_AVERAGE_COUNT_INCLUDE_PADDING", "average_inc_pad"),
                         ("POOLING_AVERAGE_COUNT_EXCLUDE_PADDING", "average_exc_pad"))

__all__ = ["AveragePoolGrad", "DownsampleFactorMaxGradGrad", "MaxPoolGrad", "MaxPoolRop", "Pool",
           "PoolGrad", "max_pool_2d_same_size", "pool_2d", "pool_3d", "PoolingMode_t",
           # Theano's module imported these for its own use; scripts reach them through it
           "Apply", "DisconnectedType", "EnumList", "OpenMPOp", "ParamsType", "Variable",
           "bool_t"]
