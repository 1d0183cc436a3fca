"""Helper functions of restricted Python translated to CUDA ``__device__`` functions
(:mod:`jitgraph.backend_gpu.python_to_cuda`): NVRTC compiles every special function of
:mod:`jitgraph.scalar_expr.special_math` cleanly, and run on the CPU (g++, ``cpu_emulation``) the
translated code computes what Python computes."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.scalar_expr import bessel as BES
from jitgraph.scalar_expr import expr as E
from jitgraph.scalar_expr import incomplete_gamma as IG
from jitgraph.scalar_expr import special_math as SM
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp, float_out

import cpu_emulation
from gpu_testing import ARCHS, compile_clean, needs_nvrtc

LIMIT = 30


def digit_steps(x):
    """Int ``//`` and ``%``, ``and``/``or``/``not``, a module constant, ``+=``, ``break``."""
    if not math.isfinite(x):
        return x
    count = 0
    m = math.floor(math.fabs(x))
    k = 0
    while m >= 1 and not k > LIMIT:
        count += (k % 3) - (k // 4)
        m = m // 10
        k += 1
        if m == 5 or k == -1:
            break
    return count + m


def stepped(x, y):
    """Two parameters, ``range`` with a float bound and a negative step, chained comparisons,
    ``a if c else b``, ``**``, float ``//``/``%``, math constants and functions."""
    total = 0.0
    if not math.isfinite(y):
        return math.copysign(math.inf, y)
    for i in range(math.floor(math.fabs(y)) % 7 + 3, 0, -2):
        total = total + i * x
    inside = 1.0 if -1.0 < x <= 1.0 else 0.0
    if math.isnan(x):
        return math.nan
    return total + inside + (x // 0.75) - (x % 0.75) + math.pow(2.0, 0.5) + 3 ** 0.5 \
        + math.atan2(x, 2.0) - math.e


UNARY = [digit_steps, SM.erfinv, SM.erfcinv, SM.erfcx, SM.gammaln, SM.gamma, SM.digamma,
         SM.trigamma, BES.i0, BES.i1, BES.j0, BES.j1]
BINARY = [stepped, BES.iv, BES.jv, IG.gammainc, IG.gammaincc, IG.gammal, IG.gammau, IG.chi2sf]


def _node(fn, dtype: str = "float64"):
    nin = len(np.atleast_1d(fn.__code__.co_varnames[:fn.__code__.co_argcount]))
    op = ScalarOp(f"test_{fn.__name__}", nin, np.vectorize(fn, otypes=[np.float64]), float_out,
                  expr=lambda *xs: E.call(fn, *xs))
    return Elemwise(op)(*[T.vector(f"x{j}", dtype=dtype) for j in range(nin)]).owner


def _source(fn, dtype: str = "float64") -> str:
    from jitgraph.backend_gpu.elemwise_codegen import contiguous_source
    from jitgraph.backend_gpu.lower_elemwise import structure_of

    return contiguous_source(structure_of(_node(fn, dtype)))


def _helper_rows() -> list:
    """The registered rows whose expression calls a helper function."""
    from jitgraph.backend_gpu.scalar_templates import Body
    from jitgraph.codegen.render import render_op
    from jitgraph.tensor.elementwise import scalar_ops

    rows = []
    for op in scalar_ops.all_scalar_ops():
        body = Body()
        try:
            render_op(body, op, ["x"] * max(op.nin, 1), ["float64"] * max(op.nin, 1),
                      "float64")
        except Exception:  # noqa: BLE001 - a row refusing float64 calls no helper
            continue
        if any(h.startswith("jgh_") for h in body.helpers):
            rows.append(op)
    return rows


def _everything(dtype: str, samples: bool = True) -> tuple:
    """``(x, y, outputs, fused node)``: one fused kernel computing every helper row (and the
    samples above) of ``x`` and ``y``: one NVRTC compilation per architecture."""
    from gpu_testing import fused

    x, y = T.vector("x", dtype=dtype), T.vector("y", dtype=dtype)
    outs = [Elemwise(op)(*[x, y][:op.nin]) for op in _helper_rows()]
    if samples:
        outs += [_node(fn, dtype).clone_with_new_inputs(
            [x, y][:fn.__code__.co_argcount]).outputs[0] for fn in UNARY + BINARY]
    return x, y, outs, fused(outs)[0].owner


def _everything_source(dtype: str) -> str:
    from jitgraph.backend_gpu.elemwise_codegen import contiguous_source
    from jitgraph.backend_gpu.lower_elemwise import structure_of

    return contiguous_source(structure_of(_everything(dtype, dtype == "float64")[3]))


def test_nvrtc_compiles_every_helper_row_and_sample_cleanly():
    needs_nvrtc()
    assert any(op.name == "erfinv" for op in _helper_rows())
    for dtype in ("float64", "float32"):  # float32 rows: computed in double, converted back
        src = _everything_source(dtype)
        for arch in ARCHS:
            compile_clean(src, f"helper_rows_{dtype}.cu", arch)


def _values(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    special = [0.0, -0.0, 0.25, -0.75, 0.999, 1.0, -1.0, 1.5, 2.0, 3.5, -2.5, 10.0, 31.0, 1e-12,
               np.inf, -np.inf, np.nan]
    return np.concatenate([special, rng.uniform(-5, 5, n - len(special))])


@pytest.mark.parametrize("fn", UNARY + BINARY, ids=lambda f: f.__name__)
def test_translated_helpers_compute_what_python_computes(fn):
    ok, why = cpu_emulation.available()
    if not ok:
        pytest.skip(why)
    nin = fn.__code__.co_argcount
    values = [_values(40, 1), np.abs(_values(40, 2))][:nin] if fn is not stepped \
        else [_values(40, 1), _values(40, 2)]
    out = np.empty(40)
    cpu_emulation.launch(_source(fn), "jg_c", values + [out, np.int32(40)])
    with np.errstate(all="ignore"):
        expected = np.array([fn(*map(float, args)) for args in zip(*values)])
    # C's tgamma and lgamma are glibc's, Python's are CPython's own: a few ulps apart
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_every_helper_row_computes_its_numpy_reference(dtype):
    """Every registered row calling a helper, run as CUDA (emulated) against its ``perform``."""
    import jitgraph
    from jitgraph.backend_gpu.elemwise_codegen import contiguous_source
    from jitgraph.backend_gpu.lower_elemwise import structure_of

    ok, why = cpu_emulation.available()
    if not ok:
        pytest.skip(why)
    x, y, outs, node = _everything(dtype, samples=False)
    values = {x: _values(40, 1).astype(dtype), y: np.abs(_values(40, 2)).astype(dtype)}
    got = [np.empty(40, o.dtype) for o in node.outputs]
    src = contiguous_source(structure_of(node))
    cpu_emulation.launch(src, "jg_c", [values[v] for v in node.inputs] + got + [np.int32(40)])
    reference = jitgraph.function([x, y], node.outputs, mode=jitgraph.Mode("py", "None"),
                                  on_unused_input="ignore")
    with np.errstate(all="ignore"):
        expected = reference(values[x], values[y])
    rtol = 1e-13 if dtype == "float64" else 1e-6  # float32: the same double, rounded once
    for g, e, o in zip(got, expected, node.outputs):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=0, equal_nan=True, err_msg=str(o))


def test_device_functions_are_defined_once_callees_first():
    src = _source(BES.jv)
    assert src.count("__device__ __noinline__ double jgh_special_math_gammaln(") == 1
    assert "__device__ double jgh_special_math_is_integer(" in src  # a leaf: inlined
    assert src.index("jgh_special_math_gammaln(double") < src.index("jgh_bessel_jv(double")
    assert "const float" not in src and "(double)" not in src.split("jg_c(")[1]


def test_float32_rows_compute_helpers_in_double():
    src = _source(SM.erfinv, "float32")
    body = src.split('extern "C"')[1]
    assert "const float t0 = ((float)(jgh_special_math_erfinv(((double)(x0)))));" in body
