"""theano.tensor.nnet.opt: its rewrite names map to jitgraph's rewrites, or refuse use with a
reason; conv_groupopt runs the rewrites registered into it."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
from jitgraph.tensor.rewriting.conv import local_abstractconv_gemm
from jitgraph.tensor.nnet import blocksparse, opt
from jitgraph.tensor.core.type import TensorType

GEMM_NAMES = ["local_abstractconv_gemm", "local_abstractconv3d_gemm",
              "local_abstractconv_gradweight_gemm", "local_abstractconv3d_gradweight_gemm",
              "local_abstractconv_gradinputs_gemm", "local_abstractconv3d_gradinputs_gemm"]


@pytest.mark.parametrize("name", GEMM_NAMES)
def test_gemm_names_are_jitgraphs_gemm_lowering(name):
    assert getattr(opt, name) is local_abstractconv_gemm


def test_blocksparse_inplace_rewrites():
    assert opt.local_inplace_sparse_block_gemv is blocksparse.local_inplace_sparse_block_gemv
    assert opt.local_inplace_sparse_block_outer is blocksparse.local_inplace_sparse_block_outer
    assert opt.sparse_block_gemv_inplace.inplace


@pytest.mark.parametrize("name", ["local_conv2d_cpu", "local_conv2d_gradweight_cpu",
                                  "local_conv2d_gradinputs_cpu", "local_abstractconv_check"])
def test_names_without_counterpart_refuse_use(name):
    placeholder = getattr(opt, name)
    assert "not applicable" in repr(placeholder) and placeholder.__doc__
    with pytest.raises(NotImplementedError, match=f"{name} does not apply to jitgraph"):
        placeholder(None)
    with pytest.raises(NotImplementedError, match="does not apply"):
        placeholder.transform(None, None)


def test_rewrites_registered_in_conv_groupopt_run():
    seen = []

    @opt.local_optimizer([opt.AbstractConv2d])
    def spy(node):
        seen.append(node.op)
        return False

    opt.conv_groupopt.register("test_spy", spy, "fast_run")
    try:
        x = TensorType("float64", (False,) * 4)()
        w = TensorType("float64", (False,) * 4)()
        out = jitgraph.tensor.nnet.conv2d(x, w)
        # the gemm lowering runs in the same phase; without it the spy sees the abstract op
        mode = jitgraph.compile.mode.get_default_mode().excluding("conv_gemm")
        f = jitgraph.function([x, w], out, mode=mode)
        assert seen and isinstance(seen[0], opt.AbstractConv2d)
        assert f(np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))).shape == (1, 1, 2, 2)
    finally:
        opt.conv_groupopt.unregister("test_spy")
