"""Which loops the direct compiler lets LLVM unroll by a run-time count.

A loop of run-time length over contiguous arrays is vectorized and interleaved by LLVM; unrolling
it again by a run-time count made kernels no faster and was about a third of LLVM's work in a
cold compile, so such loops carry ``llvm.loop.unroll.runtime.disable``. Loops over literal
bounds (pooling windows) and loops reading strided arrays (not vectorized) are left to LLVM's
unroller as before."""

from __future__ import annotations

import re

import numpy as np

from jitgraph.backend_cpu.codegen import kernels
from jitgraph.backend_cpu.native import direct, objects as native
from jitgraph.backend_cpu.native.direct_lower import lower_entry
from jitgraph.backend_cpu.options import CodegenOptions

RUNTIME_DISABLE = '!{!"llvm.loop.unroll.runtime.disable"}'


def source(layout: str, body: str) -> str:
    params = [kernels.numba_array_type("float64", 1, layout, True),
              kernels.numba_array_type("float64", 1, "C", False)]
    return f"{kernels.HEADER}\nSIG_f = {kernels.signature_text(params)}\n\n\n{body.strip()}\n"


RUNTIME_LOOP = """
def f(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0 + 1.0
"""

SUM_LOOP = """
def f(a, out):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i]
    out[0] = total
"""

LITERAL_LOOP = """
def f(a, out):
    for i in range(4):
        out[i] = a[i] * 2.0 + 1.0
"""


def lowered(src: str) -> str:
    return lower_entry(src, "f", "jitgraph_direct_kernel", "")[0]


def optimized(src: str) -> str:
    llvm = native._llvm()
    tm = native._target_machine("")
    module = direct._parse(llvm, lowered(src), tm)
    direct._optimize(llvm, module, tm, CodegenOptions().opt_level)
    return str(module)


def test_a_contiguous_loop_of_run_time_length_is_not_unrolled_by_a_run_time_count():
    text = lowered(source("C", SUM_LOOP))
    assert text.count("!llvm.loop") == 1 and RUNTIME_DISABLE in text
    # An in-order float sum is not vectorized; LLVM used to unroll it by eight for nothing
    # (one chain of dependent additions), ``unroll_iter`` being its name for the unrolled count.
    assert "unroll_iter" not in optimized(source("C", SUM_LOOP))


def test_the_vectorizer_still_interleaves_such_a_loop():
    # ``llvm.loop.unroll.disable`` would also have stopped the interleaving (one vector load
    # per iteration instead of several): the runtime-only hint does not.
    ir = optimized(source("C", RUNTIME_LOOP))
    assert len(re.findall(r"load <\d+ x double>", ir)) >= 3


def test_literal_and_strided_loops_are_left_to_llvm_unroller():
    assert "!llvm.loop" not in lowered(source("C", LITERAL_LOOP))
    assert "!llvm.loop" not in lowered(source("A", RUNTIME_LOOP))


def compiled(src: str, export: str):
    obj, why = direct.build(src, "f", export, "python", CodegenOptions())
    assert obj is not None, why
    return native.python_function(native.load(obj), "f")


def test_kernels_compute_the_same_for_every_length_around_the_vector_width():
    scale, total = compiled(source("C", RUNTIME_LOOP), "jg_test_unroll_scale"), \
        compiled(source("C", SUM_LOOP), "jg_test_unroll_sum")
    for n in range(0, 70):
        a = np.random.default_rng(n).random(n)
        out = np.zeros(max(n, 1))
        scale(a, out[:n])
        np.testing.assert_array_equal(out[:n], a * 2.0 + 1.0)
        total(a, out)
        assert out[0] == sum(a.tolist())  # in order, as Python adds
