"""The outer function's mode reaches scan's inner function and ifelse's lazy branches:
NanGuardMode, DebugMode and MonitorMode check the step's nodes, ``profile=True`` shows them."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.debugmode import BadDestroyMap, DebugMode
from jitgraph.compile.monitormode import MonitorMode
from jitgraph.compile.nanguardmode import NanGuardMode
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.ifelse import ifelse
from jitgraph.scan import scan
from jitgraph.tensor.core.conversion import as_tensor_variable


class DestroysSilently(Op):
    """A planted bug: writes into its input without declaring a destroy_map."""

    def make_node(self, x):
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        inputs[0] += 1
        out[0][0] = inputs[0].copy()


@pytest.fixture(params=[True, False], ids=["native", "stepped"])
def native(request, monkeypatch):
    from jitgraph.backend_cpu.lowering import scan as lower_scan

    monkeypatch.setattr(lower_scan, "NATIVE", request.param)
    monkeypatch.setenv("JITGRAPH_GRAPH_CACHE", "0")
    return request.param


def _log_sum():
    """A running sum of log(x[t]): x[3] < 0 makes step 3 produce NaN."""
    x = T.dvector("x")
    out, _ = scan(lambda v, h: h + T.log(v), sequences=x,
                  outputs_info=T.constant(np.float64(0)), name="logsum")
    return x, out


@pytest.mark.parametrize("linker", ["cvm", "py"])
def test_nanguardmode_names_the_inner_node_and_the_step(native, linker):
    x, out = _log_sum()
    mode = NanGuardMode(nan_is_error=True, inf_is_error=False, big_is_error=False,
                        linker=linker)
    f = jitgraph.function([x], out, mode=mode)
    np.testing.assert_allclose(f([1.0, 2.0]), np.cumsum(np.log([1.0, 2.0])))
    with pytest.raises(AssertionError) as info:
        f(np.array([1.0, 2.0, 3.0, -1.0, 5.0]))
    text = str(info.value)
    assert text.startswith("NaN detected")
    assert "log" in text.split("(in step")[0]  # the inner node that made it
    assert "in step 3 of scan 'logsum'" in text


def test_debugmode_checks_the_inner_ops(native):
    x = T.dmatrix("x")
    out, _ = scan(lambda v, h: h + DestroysSilently()(v), sequences=x,
                  outputs_info=T.zeros((2,)))
    for check_c in (False, True):
        f = jitgraph.function([x], out, mode=DebugMode(check_c_code=check_c))
        with pytest.raises(BadDestroyMap) as info:
            f(np.ones((3, 2)))
        assert "DestroysSilently" in str(info.value)


def test_debugmode_passes_a_correct_loop(native):
    x = T.dmatrix("x")
    w = T.dmatrix("w")
    out, _ = scan(lambda v, h, w: T.tanh(T.dot(w, h) + v), sequences=x,
                  outputs_info=T.zeros((3,)), non_sequences=w)
    cost = out.sum()
    f = jitgraph.function([x, w], [out, T.grad(cost, w)], mode=DebugMode())
    xv = np.linspace(-1, 1, 12).reshape(4, 3)
    wv = np.linspace(-0.5, 0.5, 9).reshape(3, 3)
    h, ref = np.zeros(3), []
    for v in xv:
        h = np.tanh(wv @ h + v)
        ref.append(h)
    np.testing.assert_allclose(f(xv, wv)[0], ref)


def test_monitormode_sees_every_step(native):
    x, out = _log_sum()
    seen = []
    f = jitgraph.function([x], out, mode=MonitorMode(
        post_func=lambda i, node, fn: seen.append((str(node.op), fn.outputs[0][0]))))
    f(np.array([1.0, 2.0, 3.0]))
    inner = [value for name, value in seen if "log(i0)" in name]
    np.testing.assert_allclose([float(v) for v in inner], np.cumsum(np.log([1.0, 2.0, 3.0])))
    assert any(name.startswith("for{cpu,logsum}") for name, _ in seen)


def test_profile_shows_the_inner_function(native):
    x, out = _log_sum()
    f = jitgraph.function([x], out, profile=True)
    f(np.array([1.0, 2.0, 3.0, 4.0]))
    f.profile.atexit_print = False
    text = f.profile.summary()
    scan_part = text.split("Scan Op profiling ( logsum )")[1]
    assert "Time in 1 calls of the op (for a total of 4 steps)" in scan_part
    assert "Total time spent in calling the VM" in scan_part
    assert "Total overhead (computing slices..)" in scan_part
    assert "Composite{add(i1, log(i0))}" in scan_part
    if native:
        assert "The loop ran as one native kernel" in scan_part
    else:  # the inner nodes' own table, 4 calls each
        row = next(line for line in scan_part.splitlines()
                   if "Numba" in line and "log(i0)" in line)
        assert row.split()[5] == "4"


def test_plain_modes_share_the_inner_program():
    from jitgraph.compile.mode import get_mode

    x, out = _log_sum()
    inner = out.owner.inputs[0].owner.op.inner
    # every function compiled by the default mode has its own Mode object
    assert inner.compiled(get_mode(None)) is inner.compiled(get_mode(None))
    guard = NanGuardMode(True, False, False)
    assert inner.compiled(guard) is not inner.compiled(get_mode(None))
    assert inner.compiled(guard) is inner.compiled(guard)


def test_ifelse_branches_are_checked_by_nanguardmode():
    a = T.dscalar("a")
    x = T.dvector("x")
    y = ifelse(T.gt(a, 0), T.log(x).sum(), (x * 2).sum())
    mode = NanGuardMode(nan_is_error=True, inf_is_error=False, big_is_error=False)
    f = jitgraph.function([a, x], y, mode=mode)
    assert f(-1.0, np.array([-1.0, 2.0])) == 2.0  # the log branch is not taken: no check
    with pytest.raises(AssertionError) as info:
        f(1.0, np.array([-1.0, 2.0]))
    assert "NaN detected" in str(info.value) and "log" in str(info.value)


def test_ifelse_branches_are_checked_by_debugmode():
    a = T.dscalar("a")
    x = T.dvector("x")
    y = ifelse(T.gt(a, 0), DestroysSilently()(x).sum(), x.sum())
    f = jitgraph.function([a, x], y, mode=DebugMode(check_c_code=False))
    assert f(-1.0, np.array([1.0, 2.0])) == 3.0
    with pytest.raises(BadDestroyMap):
        f(1.0, np.array([1.0, 2.0]))


def test_inner_program_keeps_its_buffers_unless_scan_allow_gc():
    from jitgraph.compile.mode import get_mode

    x, out = _log_sum()
    inner = out.owner.inputs[0].owner.op.inner
    with jitgraph.config.change_flags(allow_gc=True):
        assert inner.compiled(get_mode(None)).mode.linker.allow_gc is False
        with jitgraph.config.change_flags(**{"scan.allow_gc": True}):
            assert inner.compiled(get_mode(None)).mode.linker.allow_gc is True
    f = jitgraph.function([x], out)
    np.testing.assert_allclose(f([1.0, 2.0, 3.0]), np.cumsum(np.log([1.0, 2.0, 3.0])))
