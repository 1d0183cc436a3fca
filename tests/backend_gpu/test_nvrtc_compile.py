"""NVRTC compiles every kind of generated kernel for sm_80 and sm_90 with a clean log.

No GPU is needed, only CuPy and the ``nvidia-cuda-nvrtc`` wheel (the ``cuda13`` extra); without
them these tests skip and say why. Compiled cubins are cached for the session only.
"""

from __future__ import annotations

import hashlib
import itertools

import pytest

import jitgraph.tensor as T
from jitgraph.tensor.elementwise import reduction as R
from jitgraph.tensor.elementwise import scalar_ops as S

from gpu_testing import (ARCHS, FAMILIES, SUPPORTED, compile_clean, fused, needs_nvrtc,
                         scalar_op_outputs)

pytestmark = pytest.mark.usefixtures("_nvrtc")


@pytest.fixture
def _nvrtc() -> None:
    needs_nvrtc()


def _elemwise_sources(outputs: list) -> list:
    from jitgraph.backend_gpu.lower_elemwise import (contiguous_module_source,
                                                     strided_module_source, structure_of)

    node = fused(outputs)[0].owner
    st = structure_of(node)
    return [contiguous_module_source(st), strided_module_source(st, max(st.ndim, 1))]


def _calls_helpers(op) -> bool:
    """Whether the row's expression calls a helper function (test_python_to_cuda's domain)."""
    from jitgraph.backend_gpu.scalar_templates import Body
    from jitgraph.codegen.render import render_op

    body = Body()
    try:
        render_op(body, op, ["x"] * max(op.nin, 1), ["float64"] * max(op.nin, 1), "float64")
    except Exception:  # noqa: BLE001 - rows refusing float64 call no helper either
        return False
    return any(h.startswith("jgh_") for h in body.helpers)


@pytest.mark.parametrize("dtype", SUPPORTED)
def test_every_scalar_op_compiles_for_every_dtype(dtype):
    """All scalar ops applicable to ``dtype`` (and every cast from it) in one fused kernel."""
    _, outs = scalar_op_outputs(dtype)
    names = {n for n, _ in outs}
    if dtype.startswith("float"):
        expected = {op.name for op in S.compiled_scalar_ops() if not _calls_helpers(op)} \
            - {"invert", "and_", "or_", "xor"}
        assert expected <= names, f"ops missing for {dtype}: {sorted(expected - names)}"
    for src in _elemwise_sources([o for _, o in outs]):
        for arch in ARCHS:
            compile_clean(src.source, src.file_name(), arch)


def test_fast_math_and_translated_flags_compile_cleanly():
    from jitgraph.backend_gpu.nvrtc import translate_flags

    x, y = T.fvectors("x", "y")
    (src, _) = _elemwise_sources([T.exp(x) / T.sqrt(y) + T.tanh(x * y)])
    opts = ("--use_fast_math",) + translate_flags("-lineinfo --maxrregcount=64 -DJG_TEST=1 -O3 "
                                                   "--fmad=true -m64")
    for arch in ARCHS:
        compile_clean(src.source, src.file_name(), arch, opts)


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
def test_strided_kernels_of_every_rank_compile(rank):
    from jitgraph.backend_gpu.lower_elemwise import strided_module_source, structure_of

    x = T.tensor4("x", dtype="float32")
    y = T.tensor4("y", dtype="float64")
    node = fused([T.exp(x) + y, x * 2])[0].owner
    src = strided_module_source(structure_of(node), rank)
    for arch in ARCHS:
        compile_clean(src.source, src.file_name(), arch)


def test_broadcasting_inplace_and_multi_output_composites_compile():
    from jitgraph.backend_gpu.lower_elemwise import contiguous_module_source, structure_of
    from jitgraph.backend_gpu.lower_elemwise import strided_module_source
    from jitgraph.backend_gpu.elemwise_codegen import ElemwiseStructure
    from jitgraph.tensor.elementwise.elemwise import Elemwise

    m = T.fmatrix("m")
    row = T.frow("row")
    col = T.fcol("col")
    s = T.fscalar("s")
    node = fused([T.sigmoid(m * row + col) * s, T.softplus(m) - row, m > col])[0].owner
    st = structure_of(node)
    # the same structure, writing output 0 into input 0 (the in-place form)
    inplace = ElemwiseStructure(st.scalar_op, st.op_key, st.in_dtypes, st.out_dtypes,
                                st.patterns, st.out_pattern, ((0, 0),))
    for structure in (st, inplace):
        for src in (strided_module_source(structure, 2),):
            for arch in ARCHS:
                compile_clean(src.source, src.file_name(), arch)
    full = fused([T.exp(m) * s + m])[0].owner
    src = contiguous_module_source(structure_of(full))
    for arch in ARCHS:
        compile_clean(src.source, src.file_name(), arch)
    del Elemwise


def _reductions(dtype: str) -> list:
    x = T.matrix("x", dtype=dtype)
    outs = [R.sum(x, axis=0), R.prod(x, axis=1), R.max(x), R.min(x, axis=1), R.all(x, axis=0),
            R.any(x)]
    if not dtype.startswith("float") and dtype != "bool":
        outs.append(R.CAReduce(S.op("xor"), axis=(1,))(x))
    return outs


@pytest.mark.parametrize("dtype", FAMILIES)
def test_reductions_compile_for_every_dtype_family(dtype):
    from jitgraph.backend_gpu.lower_reduce import module_source, structure_of

    for out in _reductions(dtype):
        node = out.owner
        while not isinstance(node.op, R.CAReduce):  # keepdims / casts around the reduction
            node = node.inputs[0].owner
        st = structure_of(node)
        for kr, rr in ((0, 1), (1, 1)):
            src = module_source(st, kr, rr)
            compile_clean(src.source, src.file_name(), ARCHS[1])
    st = structure_of(R.sum(T.matrix("x", dtype=dtype), axis=1).owner)
    src = module_source(st, 1, 1)
    compile_clean(src.source, src.file_name(), ARCHS[0])


def test_fused_elementwise_then_reduce_compiles_at_every_rank():
    from jitgraph.backend_gpu.lower_reduce import module_source, structure_of
    from jitgraph.tensor.elementwise.composite import Composite

    x = T.ftensor3("x")
    y = T.frow("y")
    pre = Composite(["float32", "float32"], [(S.op("sub"), (0, 1), "float32"),
                                             (S.op("sqr"), (2,), "float32"),
                                             (S.op("exp"), (3,), "float32")], [4])
    node = R.Sum(axis=(0, 2), pre_op=pre)(x, y.dimshuffle("x", 0, 1)).owner
    st = structure_of(node)
    for kr, rr in itertools.product(range(3), range(3)):
        src = module_source(st, kr, rr)
        compile_clean(src.source, src.file_name(), ARCHS[1])
    ipow = R.Sum(axis=(0,), pre_op=S.op("pow"))(T.lmatrix("a"), T.lmatrix("b")).owner
    for arch in ARCHS:
        src = module_source(structure_of(ipow), 1, 1)
        compile_clean(src.source, src.file_name(), arch)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_kernels_compile(log):
    from jitgraph.backend_gpu.nnet_codegen import RowwiseStructure
    from jitgraph.backend_gpu.lower_nnet import module_source

    for din, dout in (("float32", "float32"), ("float64", "float64"), ("int32", "float64")):
        src = module_source(RowwiseStructure(log, din, dout))
        for arch in ARCHS:
            compile_clean(src.source, src.file_name(), arch)


def test_blas_epilogue_kernels_compile():
    from jitgraph.backend_gpu.lower_blas import axpby_source

    for dtype in ("float32", "float64"):
        src = axpby_source(dtype)
        for arch in ARCHS:
            compile_clean(src.source, src.file_name(), arch)


def test_cubins_go_to_the_compiledir_keyed_by_arch_and_options(tmp_path):
    """The real compile path: a miss compiles and publishes, the same key loads, another arch
    or other options compile anew."""
    import jitgraph
    from jitgraph.backend_gpu import kernels

    x = T.dvector("x")
    (src, _) = _elemwise_sources([T.erf(x) * 3])
    before = len(kernels.COMPILE_LOG)
    first = kernels.compile_source(src, "sm_90", ())
    again = kernels.compile_source(src, "sm_90", ())
    other_arch = kernels.compile_source(src, "sm_80", ())
    fast = kernels.compile_source(src, "sm_90", ("--use_fast_math",))
    assert again.cached and again.cubin_path == first.cubin_path
    assert other_arch.cubin_path != first.cubin_path and fast.cubin_path != first.cubin_path
    assert first.cubin_path.read_bytes()[:4] == b"\x7fELF"
    entry = first.cubin_path.parent
    assert (entry / "mod.cu").read_text() == src.source
    assert str(entry).startswith(str(jitgraph.config.compiledir))
    assert len(kernels.COMPILE_LOG) - before == 4
    from jitgraph.cache import metadata

    info = metadata.parse((entry / "info.json").read_bytes(), metadata.ENTRY)
    assert info.kind == metadata.GPU_KERNEL and info.details["arch"] == "sm_90"
    if not first.cached:  # written now (an older jitgraph's entry may be in the test cache)
        assert info.schema == metadata.SCHEMA_VERSION
        assert info.details["nvrtc"] == kernels.nvrtc_version()
        assert info.details["cubin_sha256"] == hashlib.sha256(
            first.cubin_path.read_bytes()).hexdigest()
        assert info.compile_seconds["module"] >= 0
