"""The Backend interface (:mod:`jitgraph.compile.backend`): the compiler talks to backends
only through it."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile import backend as backend_registry
from jitgraph.compile import graph_cache
from jitgraph.compile.backend import Backend, backends, get_backend
from jitgraph.compile.debugmode import DebugMode
from jitgraph.compile.linker import Linker, VMLinker, get_linker
from jitgraph.compile.mode import Mode
from jitgraph.graph.fg import FunctionGraph

PACKAGE = pathlib.Path(jitgraph.__file__).parent


def _sources(folder: str) -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text() for p in (PACKAGE / folder).rglob("*.py")}


def test_compile_names_no_backend_module():
    named = [path for path, text in _sources("compile").items()
             if "backend_cpu" in text or "backend_gpu" in text]
    assert named == []


def test_the_gpu_backend_does_not_use_the_cpu_backend():
    assert [path for path, text in _sources("backend_gpu").items() if "backend_cpu" in text] == []


def test_rewrite_does_not_import_the_gpu_backend():
    assert [path for path, text in _sources("rewrite").items() if "backend_gpu" in text] == []


def test_the_declared_backends_are_registered():
    assert [b.name for b in backends()] == ["gpu", "cpu"]  # highest priority first
    assert get_backend("cpu") is not None and get_backend("nope") is None


def test_every_compiled_linker_name_comes_from_the_cpu_backend():
    cpu = get_backend("cpu")
    assert set(cpu.linkers()) == {"cvm", "cvm_nogc", "c|py", "c|py_nogc", "c"}
    if jitgraph.config.cxx:
        assert type(get_linker("cvm")).__name__ == "NumbaLinker"


class _Recorder(Backend):
    """A backend of this test: one linker, a device key, a checked program."""

    name = "test_recorder"
    priority = 100

    def __init__(self) -> None:
        self.key: str | None = None
        self.checked: list = []
        self.wrapped: list[str] = []

    def linkers(self):
        return {"test_recorder_vm": lambda: VMLinker()}

    def wrap_linker(self, name: str, linker: Linker) -> Linker:
        self.wrapped.append(name)
        return linker

    def device_key(self):
        return self.key

    def checked_program(self, fgraph, order):
        self.checked.append(len(order))
        return None  # the next backend is asked


@pytest.fixture
def recorder(monkeypatch):
    made = _Recorder()
    backends()  # the declared ones first, kept after the test
    monkeypatch.setattr(backend_registry, "_REGISTERED", list(backend_registry._REGISTERED))
    monkeypatch.setattr(backend_registry, "_ordered", backend_registry._ordered)
    backend_registry.register(made)
    return made


def test_a_registered_backend_provides_linkers_and_wraps_every_one(recorder):
    x = T.dvector("x")
    f = jitgraph.function([x], x * 2, mode=Mode(linker="test_recorder_vm"))
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    get_linker("py")
    assert recorder.wrapped[-2:] == ["test_recorder_vm", "py"]


def test_debugmode_asks_the_backends_in_priority_order(recorder):
    x = T.dvector("x")
    f = jitgraph.function([x], T.exp(x), mode=DebugMode(check_c_code=True))
    np.testing.assert_allclose(f(np.zeros(2)), [1.0, 1.0])
    assert recorder.checked


def test_the_graph_cache_key_says_where_the_graph_runs(recorder, jitgraph_rewrites_only):
    """A graph rewritten for a device is never loaded by a process without it."""
    x = T.dvector("x")
    fgraph = FunctionGraph([x], [x * 2])
    mode = Mode(linker="py")
    plain = graph_cache.graph_key(fgraph, [], mode)
    recorder.key = "a device"
    on_device = graph_cache.graph_key(fgraph, [], mode)
    assert plain is not None and on_device is not None and plain != on_device
    assert "a device" in on_device


def test_the_gpu_backend_key_follows_the_device(monkeypatch):
    device = pytest.importorskip("jitgraph.backend_gpu.device")

    class FakeDevice:
        moves_computation = True

    gpu = get_backend("gpu")
    assert gpu.device_key() is None  # device=cpu, nothing initialised (no CuPy imported)
    monkeypatch.setattr(device, "active", lambda: FakeDevice())
    assert gpu.device_key() == "gpu usable, moves_computation=True"


def test_a_linker_registered_after_the_gpu_is_in_use_is_wrapped():
    """Issue 27 bug #1: use() wrapped only the linkers registered at that moment."""
    code = ("import jitgraph.backend_gpu.linker as L\n"
            "L.wrap_linkers()  # what use() does once a GPU is initialised\n"
            "from jitgraph.compile.linker import get_linker\n"
            "print(type(get_linker('cvm')).__name__, type(get_linker('py')).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["GpuLinker", "PerformLinker"]


def test_the_cpu_driver_writes_its_own_call():
    if not jitgraph.config.cxx:
        pytest.skip("compiled code disabled")
    x = T.dvector("x")
    f = jitgraph.function([x], x * 2 + 1)
    program = f._program
    inlined = program.inline_call(program.output_cells, f._run)
    assert inlined is not None and inlined.results[0].startswith("_fc_l_")
    assert inlined.lines[0] == "    try:" and inlined.lines[-1] == "        _fail(_exc)"
    assert any(line.strip().startswith(inlined.results[0] + " = ") for line in inlined.lines)
    assert program.inline_call(program.output_cells, lambda: None) is None  # a wrapped run
    program.post_node = lambda *args: None
    assert program.inline_call(program.output_cells, f._run) is None  # a hooked program
