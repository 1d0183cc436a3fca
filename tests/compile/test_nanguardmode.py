"""NanGuardMode: the first node making a NaN / Inf / huge value is reported."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph import function
from jitgraph.compile.nanguardmode import NanGuardMode, find_bad_values


def test_log_of_zero_reports_the_log_node_and_where_it_was_created():
    x = T.dvector("x")
    y = T.log(x)  # the line the report must point at
    f = function([x], y * 2, mode="NanGuardMode")
    np.testing.assert_allclose(f([1.0, np.e]), [0.0, 2.0])
    with pytest.raises(AssertionError) as info:
        f([0.0, 1.0])
    text = str(info.value)
    assert text.startswith("Inf detected\nNanGuardMode found an error in the output of a node")
    assert "log" in text  # the log node, or the fused kernel holding it ("fused ops: log, ...")
    assert "Backtrace when that variable was created" in text
    assert "test_nanguardmode.py" in text


def test_unfused_log_node_is_named():
    x = T.dvector("x")
    f = function([x], T.log(x), mode=NanGuardMode(True, True, True))
    with pytest.raises(AssertionError, match=r"(?s)Inf detected.*Elemwise\{log"):
        f([0.0])


def test_nan_big_and_input_checks():
    x = T.dvector("x")
    with pytest.raises(AssertionError, match="NaN detected"):
        function([x], T.sqrt(x), mode="NanGuardMode")([-1.0])
    with pytest.raises(AssertionError, match="Big value detected"):
        function([x], x * 1e11, mode="NanGuardMode")([1.0])
    f = function([x], x + 1, mode="NanGuardMode")
    with pytest.raises(AssertionError, match="in an input of the graph"):
        f([np.nan])
    # each check can be switched off
    g = function([x], T.sqrt(x), mode=NanGuardMode(nan_is_error=False, inf_is_error=True,
                                                   big_is_error=True))
    assert np.isnan(g([-1.0])[0])
    h = function([x], x * 1e11, mode=NanGuardMode(True, True, big_is_error=False))
    assert h([1.0])[0] == 1e11
    with pytest.raises(ValueError, match="at least one"):
        NanGuardMode(False, False, False)


def test_integers_skip_nan_and_inf_but_not_big():
    i = T.lvector("i")
    f = function([i], i * 2, mode="NanGuardMode")
    np.testing.assert_array_equal(f([1, 2]), [2, 4])
    with pytest.raises(AssertionError, match="Big value"):
        f([10**11])
    assert find_bad_values(np.array([True, False]), True, True, True) is None


def test_variables_can_opt_out():
    x = T.dvector("x")
    y = T.log(x)
    y.tag.nan_guard_mode_check = False
    f = function([x], y, mode=NanGuardMode(True, True, True))
    assert np.isinf(f([0.0])[0])


def test_warn_action_logs_and_goes_on(caplog):
    x = T.dvector("x")
    with jitgraph.config.change_flags(**{"NanGuardMode.action": "warn"}):
        f = function([x], T.log(x), mode="NanGuardMode")
        with caplog.at_level(logging.ERROR, logger="jitgraph.compile.nanguardmode"):
            out = f([0.0])
    assert np.isinf(out[0])
    assert "Inf detected" in caplog.text


def test_find_bad_values_on_numpy_arrays():
    nan, inf, big = True, True, True
    assert find_bad_values(np.array([1.0, np.nan]), nan, inf, big) == "NaN"
    assert find_bad_values(np.array([1.0, -np.inf]), nan, inf, big) == "Inf"
    assert find_bad_values(np.array([1.0, -1e12]), nan, inf, big) == "Big value"
    assert find_bad_values(np.array([1.0, np.nan, np.inf]), False, inf, big) == "Inf"
    assert find_bad_values(np.array([1 + 1j, np.nan * 1j]), nan, inf, big) == "NaN"
    assert find_bad_values(np.zeros(0), nan, inf, big) is None
    assert find_bad_values(np.ones((2, 3), "float32"), nan, inf, big) is None


class DeviceArray:
    """Stands in for a GPU array: reductions work, converting the whole array is refused."""

    def __init__(self, data):
        self._data = np.asarray(data)
        self.dtype, self.size, self.shape = self._data.dtype, self._data.size, self._data.shape

    def min(self):
        return self._data.min()

    def max(self):
        return self._data.max()

    def __array__(self, *args, **kwargs):
        raise AssertionError("NanGuardMode copied a whole device array to the host")


def test_device_arrays_are_reduced_where_they_live():
    assert find_bad_values(DeviceArray([1.0, np.nan]), True, True, True) == "NaN"
    assert find_bad_values(DeviceArray([1.0, np.inf]), True, True, True) == "Inf"
    assert find_bad_values(DeviceArray([1.0, 2e10]), True, True, True) == "Big value"
    assert find_bad_values(DeviceArray([1.0, 2.0]), True, True, True) is None
