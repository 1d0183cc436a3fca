"""``theano.sandbox.blocksparse``: the block-sparse products, moved by Theano to
``theano.tensor.nnet.blocksparse`` (:mod:`jitgraph.tensor.nnet.blocksparse`)."""

from jitgraph.tensor.nnet.blocksparse import (SparseBlockGemv, SparseBlockOuter,
                                              sparse_block_dot, sparse_block_gemv,
                                              sparse_block_gemv_inplace, sparse_block_outer,
                                              sparse_block_outer_inplace)

__all__ = ["SparseBlockGemv", "SparseBlockOuter", "sparse_block_dot", "sparse_block_gemv",
           "sparse_block_gemv_inplace", "sparse_block_outer", "sparse_block_outer_inplace"]
