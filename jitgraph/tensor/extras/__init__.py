"""Sorting, counting and running ops (``theano.tensor.sort``, ``theano.tensor.extra_ops``)."""
