"""Kernel keys and sources (the contract with the disk cache), flag mapping, vecmath accuracy."""

from __future__ import annotations

import ctypes
import importlib.util
import pickle
import warnings

import numba
import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu import options
from jitgraph.backend_cpu.runtime import blocks
from jitgraph.backend_cpu.codegen.compose import fuse
from jitgraph.backend_cpu.codegen.elemwise import elemwise_source
from jitgraph.backend_cpu.lowering.elemwise import structure_of

from cpu_testing import compile_fn


def _source(expr_builder, opts=None):
    x, y = T.dvectors("x", "y")
    (out,) = fuse([expr_builder(x, y)])
    return elemwise_source(structure_of(out.owner), opts or options.CodegenOptions())


def test_keys_are_structural_stable_picklable_and_constant_free():
    a = _source(lambda x, y: T.exp(x) * 2.5 + y)
    b = _source(lambda x, y: T.exp(x) * 9.0 + y)  # another constant, same structure
    c = _source(lambda x, y: T.exp(x) * 2.5 - y)
    assert a.key == b.key and a.source == b.source
    assert a.key != c.key
    assert pickle.loads(pickle.dumps(a.key)) == a.key
    assert repr(pickle.loads(pickle.dumps(a.key))) == repr(a.key)  # stable text to hash
    assert "2.5" not in a.source and "9.0" not in b.source


def test_options_enter_the_key():
    base = _source(lambda x, y: x + y)
    fast = _source(lambda x, y: x + y, options.CodegenOptions(fastmath=options.ALL_FASTMATH))
    o1 = _source(lambda x, y: x + y, options.CodegenOptions(opt_level=1))
    assert len({base.key, fast.key, o1.key}) == 3


def test_source_is_an_importable_module_file(tmp_path):
    """What the compiledir does: write ``mod.py``, import it, compile ``SIG_<entry>``."""
    ks = _source(lambda x, y: T.sin(x) * y + 1)
    path = tmp_path / "mod.py"
    path.write_text(ks.source)
    spec = importlib.util.spec_from_file_location("jitgraph_test_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kern = numba.njit(mod.SIG_kernel_c, **ks.options.njit_kwargs())(mod.kernel_c)
    x, y = np.linspace(0, 3, 700), np.full(700, 2.0)
    out = np.empty(700)
    kern(x, y, np.ones(1, dtype="int8"), out, 0, 700)  # the literal 1 is an int8 argument
    np.testing.assert_allclose(out, np.sin(x) * y + 1, rtol=1e-14)


def test_cxxflags_mapping_and_ignored_tokens():
    parsed = options.parse_cxxflags("-O1 -ffinite-math-only -march=native -g -fopenmp -Wall")
    assert parsed.opt_level == 1
    assert set(parsed.fastmath) == {"nnan", "ninf"}
    assert parsed.target_cpu == "native" and parsed.debug
    assert parsed.ignored == ("-fopenmp", "-Wall")
    assert set(options.parse_cxxflags("-ffast-math").fastmath) == set(options.ALL_FASTMATH)
    assert options.parse_cxxflags("-Ofast").opt_level == 3


def test_flags_change_the_options_and_warn_once_about_ignored_tokens():
    with jitgraph.config.change_flags({"gcc.cxxflags": "-O2 -ffast-math -frobnicate"}):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            opts = options.current_options()
            options.current_options()
        assert [str(w.message) for w in rec].count(
            "jitgraph (Numba backend) ignores these gcc.cxxflags tokens: -frobnicate") == 1
        assert opts.opt_level == 2 and set(opts.fastmath) == set(options.ALL_FASTMATH)
    with jitgraph.config.change_flags({"cmodule.remove_gxx_opt": True, "cmodule.debug": True}):
        opts = options.current_options()
        assert opts.opt_level == 0 and opts.debug and opts.boundscheck
        assert opts.njit_kwargs()["_dbg_optnone"]


def test_opt_level_is_set_only_while_compiling():
    saved = numba.config.OPT
    with options.compiling_with(options.CodegenOptions(opt_level=1)):
        assert int(numba.config.OPT) == 1
    assert numba.config.OPT == saved


def test_fastmath_flags_compile_and_run():
    x = T.dvector("x")
    with jitgraph.config.change_flags({"gcc.cxxflags": "-ffast-math -O1"}):
        fn = compile_fn([x], T.exp(x) * 2 + x)
    v = np.linspace(-1, 1, 9)
    np.testing.assert_allclose(fn(v), np.exp(v) * 2 + v, rtol=1e-12)


# -- vecmath --------------------------------------------------------------------------------

def _run_block(name: str, values: np.ndarray) -> np.ndarray:
    src = np.ascontiguousarray(values, dtype="float64")
    dst = np.empty_like(src)
    ptr = ctypes.POINTER(ctypes.c_double)
    block = ctypes.CFUNCTYPE(None, ptr, ptr, ctypes.c_int64)(blocks.address(name))
    block(src.ctypes.data_as(ptr), dst.ctypes.data_as(ptr), src.size)
    return dst


def _ulps(got: np.ndarray, ref: np.ndarray) -> float:
    finite = np.isfinite(ref) & (ref != 0)
    return float(np.max(np.abs(got[finite] - ref[finite]) / np.spacing(np.abs(ref[finite]))))


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-320, -1e-320, 5e-324, 1e308, -1e308])


@pytest.mark.parametrize("name,ref,lo,hi,limit", [
    ("exp", np.exp, -760.0, 720.0, 1.0),
    ("log", np.log, -5.0, 1e6, 1.0),
    ("log1p", np.log1p, -1.5, 1e4, 1.0),
    ("sin", np.sin, -2e5, 2e5, 2.0),
    ("cos", np.cos, -2e5, 2e5, 2.0),
    ("expm1", np.expm1, -760.0, 720.0, 2.0),
    ("tanh", np.tanh, -400.0, 400.0, 3.0),
])
def test_vecmath_accuracy_and_special_values(name, ref, lo, hi, limit):
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.uniform(lo, hi, 20000), rng.uniform(-2, 2, 5000),
                             np.exp(rng.uniform(-700, 700, 5000)), SPECIALS])
    with np.errstate(all="ignore"):
        expected = ref(values)
    got = _run_block(name, values)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    inf = np.isinf(expected)
    np.testing.assert_array_equal(got[inf], expected[inf])
    assert _ulps(got, expected) <= limit


CHILD = """
import json, numpy as np
import jitgraph, jitgraph.tensor as T
import jitgraph.backend_cpu.linker
from jitgraph.cache import STATS
x, y = T.dvectors("x", "y")
f = jitgraph.function([x, y], [T.exp(x) * y + T.sin(y), T.sum(x * y)],
                      mode=jitgraph.Mode(linker="cvm", optimizer="fast_run"))
out = f(np.linspace(-2, 2, 1000), np.linspace(0, 1, 1000))
from jitgraph.backend_cpu.codegen import tiering
tiering.settle()  # a cold process: the optimised kernels' counts come with the child's report
print("RESULT" + json.dumps({"hits": STATS.hits, "misses": STATS.misses,
                             "values": [float(out[0].sum()), float(out[1])]}))
"""


def test_kernels_stored_in_the_compiledir_are_loaded_by_a_new_process(tmp_path):
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, JITGRAPH_CPU_DISK_CACHE="1",
               JITGRAPH_FLAGS=f"base_compiledir={tmp_path}")
    results = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                              text=True, timeout=300)
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
        assert line, proc.stdout + proc.stderr
        results.append(json.loads(line[0][6:]))
    first, second = results
    assert first["misses"] > 0 and first["hits"] == 0
    assert second["hits"] > 0
    assert second["values"] == first["values"]
    assert list(tmp_path.rglob("mod.py"))


def test_nodes_of_one_structure_generate_its_source_once(monkeypatch):
    """Lowering generates a kernel's source (only to find its key) once per structure, not
    once per node: a network's repeated blocks share a few structures (issue 31)."""
    from jitgraph.backend_cpu.lowering import elemwise as lowering
    from jitgraph.backend_cpu.lowering import reduce as reduce_lowering

    generated = []

    def counted(generate):
        def source(st, opts):
            generated.append(st.key(opts))
            return generate(st, opts)
        return source

    monkeypatch.setenv("JITGRAPH_GRAPH_CACHE", "0")  # (a stored program is not lowered)
    monkeypatch.setattr(lowering, "_SOURCES", {})
    monkeypatch.setattr(reduce_lowering, "_SOURCES", {})
    monkeypatch.setattr(lowering, "elemwise_source", counted(lowering.elemwise_source))
    monkeypatch.setattr(reduce_lowering, "reduce_source", counted(reduce_lowering.reduce_source))
    x, y, z, w = T.dmatrices("x", "y", "z", "w")
    outs = [T.exp(x) * y, T.exp(z) * w, x.sum(axis=0), z.sum(axis=0)]
    f = jitgraph.function([x, y, z, w], outs)
    ops = sorted(type(n.op).__name__ for n in f.maker.fgraph.apply_nodes)
    assert ops == ["Elemwise", "Elemwise", "Sum", "Sum"], ops
    # one elemwise kernel and its flat variant, one reduction (6 before: once per node)
    assert len(generated) == len(set(generated)) == 3
    a, b = np.random.default_rng(0).random((2, 3, 4))
    got = f(a, b, b, a)
    np.testing.assert_allclose(got[0], np.exp(a) * b, rtol=1e-15)
    np.testing.assert_allclose(got[1], np.exp(b) * a, rtol=1e-15)
    np.testing.assert_allclose(got[2], a.sum(axis=0))
    np.testing.assert_allclose(got[3], b.sum(axis=0))
