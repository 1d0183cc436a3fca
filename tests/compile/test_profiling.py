"""The profiler: profile=True, ProfileStats, the summary sections and flags, ProfileMode."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph import function
from jitgraph.compile import profiling
from jitgraph.compile.linker import make_program
from jitgraph.compile.profilemode import ProfileMode
from jitgraph.compile.profiling import ProfileStats, print_registered_profiles
from jitgraph.compile.profiling_memory import MemoryModel
from jitgraph.graph.fg import FunctionGraph

flags = jitgraph.config.change_flags


@pytest.fixture(autouse=True)
def _no_printing_at_exit(monkeypatch):
    """Profiles made by these tests are not printed when the test session exits."""
    monkeypatch.setattr(profiling, "_REGISTERED", [])


def _train(mode=None, profile=True, name="train"):
    x = T.dmatrix("x")
    w = jitgraph.shared(np.ones(4), name="w")
    y = T.exp(T.dot(x, w)) * 2 + 1
    cost = T.sum(y)
    return function([x], cost, updates=[(w, w - 0.001 * T.grad(cost, w))], mode=mode,
                    profile=profile, name=name)


def test_profile_true_gives_every_section():
    f = _train()
    for _ in range(3):
        f(np.ones((5, 4)) * 0.1)
    text = f.profile.summary()
    for section in ("Function profiling\n==================", "  Message: train",
                    "Time in 3 calls to Function.__call__", "Time in Function.vm.__call__",
                    "Time in thunks", "Total compilation time", "Number of Apply nodes",
                    "jitgraph rewrite time", "jitgraph validate time", "Linker time",
                    "Nodes by implementation", "First call",
                    "\nClass\n---\n<% time> <sum %> <apply time> <time per call> <type> <#call> "
                    "<#apply> <Class name>",
                    "\nOps\n---\n", "<Op name>",
                    "\nApply\n------\n<% time> <sum %> <apply time> <time per call> <type> "
                    "<#call> <id> <Apply name>",
                    "Here are tips to potentially make your code run faster"):
        assert section in text, section
    kinds = set(f._program.kinds)
    table = text.split("\nClass\n")[1].split("\nOps\n")[0]
    assert any(f" {k} " in table for k in kinds)
    assert "jitgraph.tensor.linalg.blas" in table or "jitgraph.tensor.core.basic" in table
    assert f.profile.fct_callcount == 3
    assert sum(f.profile.apply_time.values()) > 0
    assert set(f.profile.apply_callcount.values()) == {3}


def test_flag_and_profile_stats_instance():
    x = T.dvector("x")
    with flags(profile=True):
        f = function([x], x * 2)
    assert isinstance(f.profile, ProfileStats)
    stats = ProfileStats(message="my message", atexit_print=False)
    g = function([x], x + 1, profile=stats)
    g([1.0])
    assert g.profile is stats and "Message: my message" in stats.summary()
    assert function([x], x - 1).profile is None


def test_table_limits_and_line_width():
    f = _train()
    f(np.ones((5, 4)))
    with flags(**{"profiling.n_apply": 1, "profiling.n_ops": 1,
                  "profiling.output_line_width": 60}):
        text = f.profile.summary()
    n_nodes = len(f._program.order)
    assert f"... (remaining {n_nodes - 1} Apply instances" in text
    ops_table = text.split("\nOps\n")[1].split("\nApply\n")[0].splitlines()
    assert len(ops_table) == 4 and "(remaining" in ops_table[3]  # ---, header, 1 row, rest
    assert max(len(line) for line in text.splitlines()) <= 60
    assert "(remaining 0 Apply" in f.profile.summary(n_apply_to_print=100)


def test_ignore_first_call_and_time_thunks():
    with flags(**{"profiling.ignore_first_call": True}):
        f = _train()
    for _ in range(3):
        f(np.ones((5, 4)))
    assert f.profile.fct_callcount == 2 and f.profile.ignored_calls == 1
    assert set(f.profile.apply_callcount.values()) == {2}
    assert "first call(s) left out" in f.profile.summary()
    with flags(**{"profiling.time_thunks": False}):
        g = _train()
    g(np.ones((5, 4)))
    assert g.profile.fct_callcount == 1
    assert "No execution time accumulated (hint: try config profiling.time_thunks=1)" in \
        g.profile.summary()


def test_debugprint_optimizer_profile_and_fused_kernels():
    with flags(profile_optimizer=True, **{"profiling.debugprint": True}):
        f = _train(mode="FAST_RUN")
        f(np.ones((5, 4)))
        text = f.profile.summary()
    assert "Rewriter Profile" in text and "phases:" in text
    assert "Debugprint of train" in text
    if any(getattr(getattr(n.op, "scalar_op", None), "inner_ops", None)
           for n in f._program.order):
        assert "Fused elementwise kernels (the original ops inside each)" in text
        fused = text.split("Fused elementwise kernels")[1]
        assert "exp" in fused and "mul" in fused


def test_memory_profile():
    with flags(profile_memory=True, **{"profiling.min_memory_size": 0,
                                       "profiling.min_peak_memory": True}):
        f = _train(mode="FAST_COMPILE")
        f(np.ones((50, 4)))
        text = f.profile.summary()
    for line in ("Memory Profile", "Max peak memory with current setting",
                 "optimizer_excluding=inplace", "Max peak memory if allow_gc=False",
                 "Minimum peak from all valid apply node orders",
                 "<Sum apply outputs (bytes)>"):
        assert line in text, line


def test_memory_model_peaks():
    x = T.dvector("x")
    a = T.exp(x)
    b = a + 1
    c = b * 2
    fgraph = FunctionGraph([x], [c], clone=False)
    order = fgraph.toposort()
    sizes = {v: (8000, False) for v in fgraph.variables if v.owner is not None}
    model = MemoryModel(order, fgraph.outputs, sizes)
    # exp: 8000; add: 16000 then exp freed; mul: 16000 then add freed
    assert model.peak(gc=True) == (16000, 0)
    assert model.peak(gc=False) == (24000, 0)  # the DimShuffles of constants are views
    assert model.min_peak() == 16000


def test_program_run_nodes_times_hooks_and_errors():
    x = T.dvector("x")
    y = T.log(x) + 1
    fgraph = FunctionGraph([x], [y], clone=False)
    program = make_program(fgraph, True, fgraph.toposort())
    program.input_cells[0][0] = np.array([1.0])
    seen = []
    program.pre_node = lambda i, node, thunk: seen.append(("pre", i))
    program.post_node = lambda i, node, thunk: seen.append(("post", i))
    times = [0.0] * len(program.order)
    program.run_nodes(times)
    assert program.output_cells[0][0] == 1.0 and all(t > 0 for t in times)
    assert seen == [(k, i) for i in range(len(times)) for k in ("pre", "post")]
    program.input_cells[0][0] = "not an array"
    with pytest.raises(Exception, match="Apply node that caused the error"):
        program.run_nodes()


def test_backend_compile_report_is_printed():
    f = _train()
    f._program.compile_report = {"compile_seconds": 1.5, "compiled": 3, "cache_hits": 2,
                                 "cache_misses": 1, "cache_load_seconds": 0.25}
    f(np.ones((5, 4)))
    text = f.profile.summary()
    assert ("Kernel compilation (reported by the backend): 3 kernels compiled in 1.500e+00s; "
            "cache: 2 hits, 1 misses, 2.500e-01s loading") in text


def test_exit_printer_skips_functions_never_called(tmp_path):
    called = _train(name="called_fn")
    _train(name="never_called_fn")
    called(np.ones((5, 4)))
    buf = io.StringIO()
    print_registered_profiles(file=buf)
    assert "Message: called_fn" in buf.getvalue()
    assert "never_called_fn" not in buf.getvalue()
    assert "Skipped 1 empty profile(s)" in buf.getvalue()
    target = tmp_path / "profile.txt"
    with flags(**{"profiling.destination": str(target)}):
        print_registered_profiles()
    assert "Message: called_fn" in target.read_text()


def test_profile_printed_at_exit_to_stderr():
    script = textwrap.dedent("""
        import numpy as np
        import jitgraph, jitgraph.tensor as T
        x = T.dvector("x")
        f = jitgraph.function([x], T.exp(x) + 1, profile=True, name="at_exit_fn")
        f(np.ones(3))
        jitgraph.function([x], x * 2, profile=True, name="unused_fn")
    """)
    # no kernel compilation in the child; Theano 1.0.5 prints at exit only under profile=True
    for flags_value, printed in (("cxx=,profile=True", True), ("cxx=", False)):
        env = dict(os.environ, JITGRAPH_FLAGS=flags_value)
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert ("Message: at_exit_fn" in proc.stderr) == printed, proc.stderr[-2000:]
        assert "unused_fn" not in proc.stderr and proc.stdout == ""


def test_profile_mode_print_summary():
    mode = ProfileMode()
    f = _train(mode=mode, profile=None)
    for _ in range(2):
        f(np.ones((5, 4)))
    buf = io.StringIO()
    mode.print_summary(file=buf)
    text = buf.getvalue()
    for line in ("ProfileMode.print_summary()\n---------------------------",
                 "local_time", "(Time spent running thunks)",
                 "Apply-wise summary: <fraction of local_time spent at this position> "
                 "(<Apply position>, <Apply Op name>)",
                 "Op-wise summary: <fraction of local_time spent on this kind of Op> <Op name>",
                 "Single Op-wise summary", "(*) Op is running a compiled implementation",
                 "jitgraph fct summary", "train"):
        assert line in text, line
    assert f.profile in mode.profile_stats and not f.profile.atexit_print
    x = T.dvector("x")
    assert isinstance(function([x], x + 1, mode="PROFILE_MODE").maker.mode, ProfileMode)


def test_theano_positional_form_and_gpu_checks():
    """``ProfileStats(False, gpu_checks=False)`` as Theano's programs write it; a CPU program
    has no GPU node to warn about either way."""
    x = T.dvector("x")
    for checks in (False, True):
        stats = ProfileStats(False, gpu_checks=checks)
        assert stats.gpu_checks is checks
        f = function([x], x * 2, profile=stats)
        np.testing.assert_array_equal(f(np.ones(3)), [2.0] * 3)
        buf = io.StringIO()
        f.profile.summary(buf)
        assert "Message" in buf.getvalue()
