"""Helper functions of restricted Python (:mod:`jitgraph.scalar_expr.helpers`) called from a
scalar op's expression, compiled into CPU kernels: the direct compiler and Numba must compute
exactly what Python computes, and code outside the subset is refused with a clear error."""

from __future__ import annotations

import itertools
import math
import os

import numba
import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen import kernels
from jitgraph.backend_cpu.native import direct, objects as native
from jitgraph.backend_cpu.codegen.elemwise import elemwise_source
from jitgraph.backend_cpu.lowering.elemwise import structure_of
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.scalar_expr import special_math
from jitgraph.scalar_expr import expr as E
from jitgraph.scalar_expr.helpers import HelperError, helper
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp, float_out

HALF = 0.5
STEPS = 4


def horner(x):
    """A ``for`` over ``range`` with an int accumulator widened to float, module constants."""
    total = 0
    for k in range(STEPS + 1):
        total = total * x + (k + 1)
    return total * HALF


def halvings(x):
    """``while``/``if``/``elif``/``else``/``break``, int and float ``//`` and ``%``."""
    if not math.isfinite(x):
        return x
    n = math.floor(math.fabs(x)) + 1
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        elif steps > 40:
            break
        else:
            n = 3 * n + 1
        steps += 1
    return steps + (steps % 3) * 0.25 + (x % 0.75) + (x // 0.75)


def picky_log(x):
    """Calls another helper; ``and``/``or``/``not``, chained comparisons, ``a if c else b``,
    math constants, a range with a negative constant step."""
    if math.isnan(x) or not x > 0:
        return -math.inf
    for i in range(6, 0, -2):
        x = x + i * 1e-3
    return horner(x) if 0 < x < 1 else math.log(x) + math.pi - math.e + 7 / 2


SAMPLES = [horner, halvings, picky_log]
SPECIAL = [special_math.erfinv, special_math.gammaln, special_math.digamma]
_COUNTER = itertools.count()


def _values(dtype: str) -> np.ndarray:
    base = [0.0, -0.0, 0.3, -0.3, 0.999, 1.0, -1.0, 2.5, -2.5, 7.0, 12.75, -40.5, 1e-9, 1e5,
            np.inf, -np.inf, np.nan]
    rng = np.random.default_rng(5)
    return np.concatenate([base, rng.standard_normal(40) * 3]).astype(dtype)


def _op(fn) -> ScalarOp:
    """An unregistered single-input op computing ``fn`` (float output)."""
    return ScalarOp(f"test_{fn.__name__}", 1, np.vectorize(fn, otypes=[np.float64]), float_out,
                    expr=lambda x: E.call(fn, x))


def _kernel_source(fn, dtype: str) -> str:
    x = T.vector("x", dtype=dtype)
    node = Elemwise(_op(fn))(x).owner
    return elemwise_source(structure_of(node), CodegenOptions()).source


def _python(fn, values: np.ndarray) -> np.ndarray:
    out = np.array([fn(float(v)) for v in values], dtype=np.float64)
    return out.astype(values.dtype)


def _run_direct(source: str, values: np.ndarray) -> np.ndarray:
    export = f"jg_test_helpers_{os.getpid()}_{next(_COUNTER)}"
    obj, why = direct.build(source, "kernel_c", export, "python", CodegenOptions())
    assert obj is not None, why
    kernel = native.python_function(native.load(obj), "kernel_c")
    out = np.empty_like(values)
    kernel(values, out, 0, values.size)
    return out


def _run_numba(source: str, values: np.ndarray) -> np.ndarray:
    module = kernels.exec_module(source, f"jg_test_helpers_numba_{next(_COUNTER)}")
    kernel = numba.njit(module.SIG_kernel_c, **CodegenOptions().njit_kwargs())(module.kernel_c)
    out = np.empty_like(values)
    kernel(values, out, 0, values.size)
    return out


# float ``%`` and ``//`` are not translated by the direct compiler (Numba compiles those kernels)
@pytest.mark.parametrize("fn", [horner, picky_log] + SPECIAL, ids=lambda f: f.__name__)
def test_direct_compiler_computes_what_python_computes(fn):
    values = _values("float64")
    np.testing.assert_array_equal(_run_direct(_kernel_source(fn, "float64"), values),
                                  _python(fn, values))


@pytest.mark.parametrize("fn", SAMPLES, ids=lambda f: f.__name__)
def test_numba_computes_what_python_computes_in_float32_rows(fn):
    values = _values("float32")
    np.testing.assert_array_equal(_run_numba(_kernel_source(fn, "float32"), values),
                                  _python(fn, values))


def test_kernel_module_defines_each_helper_once_callees_first():
    source = _kernel_source(picky_log, "float64")
    assert source.count("def jgh_test_helpers_horner(") == 1
    assert source.index("def jgh_test_helpers_horner(") < \
        source.index("def jgh_test_helpers_picky_log(")
    assert "total = 0.0" in source  # the int literal of a float local is written as a float
    assert "math.floor" not in _kernel_source(halvings, "float64")  # floats, like np.floor


def test_helper_types_follow_python():
    h = helper(halvings)
    assert h.local_kinds == {"x": "float", "n": "float", "steps": "int"}
    assert h.return_kind == "float"


def bad_tuple(x):
    a, b = x, x
    return a + b


def bad_call(x):
    return abs(x)


def bad_global(x):
    return x + np


def bad_kwargs(x, y=1.0):
    return x + y


@pytest.mark.parametrize("fn, what", [(bad_tuple, "assignment to something other than one"),
                                      (bad_call, "the call of abs"),
                                      (bad_global, "the name 'np'"),
                                      (bad_kwargs, "not plain positional")])
def test_code_outside_the_subset_is_refused_naming_function_and_line(fn, what):
    with pytest.raises(HelperError, match=what) as info:
        helper(fn)
    assert fn.__name__ in str(info.value) and "line" in str(info.value)


def test_helpers_of_integer_inputs_are_refused_and_compile_after_a_cast():
    with pytest.raises(E.Unsupported):
        E.call(horner, E.arg("x0", "int32"))
    node = E.call(horner, E.cast(E.arg("x0", "float32"), "float32"))
    assert node.dtype == "float32" and node.args[0].args[0].dtype == "float64"
