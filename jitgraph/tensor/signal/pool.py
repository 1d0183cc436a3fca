"""``theano.tensor.signal.pool`` (defined in :mod:`jitgraph.tensor.pool`)."""

from jitgraph.tensor.pool import (AveragePoolGrad, DownsampleFactorMaxGradGrad, MaxPoolGrad,
                                  MaxPoolRop, Pool, PoolGrad, max_pool_2d_same_size, pool_2d,
                                  pool_3d)

__all__ = ["AveragePoolGrad", "DownsampleFactorMaxGradGrad", "MaxPoolGrad", "MaxPoolRop", "Pool",
           "PoolGrad", "max_pool_2d_same_size", "pool_2d", "pool_3d"]
