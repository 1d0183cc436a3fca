"""``theano.tensor.signal.downsample``: removed in Theano 1.0 (importing it failed there too).
Importing it here raises ImportError saying what replaced it."""

raise ImportError(
    "theano.tensor.signal.downsample was removed in Theano 1.0: use "
    "theano.tensor.signal.pool.pool_2d(input, ws=(2, 2), ignore_border=True) in place of "
    "downsample.max_pool_2d(input, ds=(2, 2), ignore_border=True)")
