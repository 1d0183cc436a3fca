"""DebugMode on cases from Theano 1.0.5's own DebugMode tests: a rewrite changing a variable's
type, outputs of one node sharing memory (allowed or not), and the finiteness checks changed on
the registered ``DEBUG_MODE`` after functions were compiled with it.

Before, a type-changing rewrite raised a plain TypeError (Theano: ``BadOptimization``), two
outputs of a node sharing memory were always a ``BadViewMap`` (Theano allows it when they view a
declared input, or when one of them is read by no other node), and
``predefined_modes['DEBUG_MODE']`` did not exist.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph import function, gof
from jitgraph.compile import mode as mode_module
from jitgraph.compile.debugmode import (BadOptimization, BadViewMap, DebugMode,
                                        InvalidValueError)
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op


def test_a_rewrite_changing_a_type_is_a_bad_optimization():
    @gof.local_optimizer([T.add])
    def to_float32(node):
        if node.op == T.add and node.inputs[-1].owner is None:
            return [node.outputs[0].astype("float32")]
        return False

    rewrites = gof.EquilibriumDB()
    rewrites.register("to_float32", to_float32, "all")
    a, b = T.dvectors("a", "b")
    with jitgraph.config.change_flags(on_opt_error="raise"):
        with pytest.raises(BadOptimization, match="to_float32") as info:
            function([a, b], a + b, mode=DebugMode(optimizer=rewrites.query("+all"),
                                                   stability_patience=1, check_c_code=False))
    assert "float32" in str(info.value)
    # a handler may re-raise it with more words
    assert str(type(info.value)("more: " + str(info.value))).startswith("more: ")


class _TwoOutputs(Op):
    """Outputs (c, d) with d == c[1:], made by ``perform`` from ``make(a)``."""

    def __init__(self, make, view_map=None):
        self.make = make
        self.view_map = view_map or {}

    def make_node(self, a, b):
        return Apply(self, [a, b], [a.type(), a.type()])

    def perform(self, node, inputs, outputs):
        c = self.make(inputs[0])
        outputs[0][0], outputs[1][0] = c, c[1:]

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


def _debug():
    return DebugMode(check_c_code=False)


def test_outputs_sharing_memory_with_a_declared_input():
    x, y = T.dvectors("x", "y")
    op = _TwoOutputs(lambda a: a, view_map={0: [0], 1: [0]})
    r0, r1 = function([x, y], op(x, y), mode=_debug())([1, 2, 3, 4], [5, 6, 7, 8])
    np.testing.assert_array_equal(r0, [1, 2, 3, 4])
    np.testing.assert_array_equal(r1, [2, 3, 4])


def test_outputs_sharing_memory_read_by_no_other_node():
    x, y = T.dvectors("x", "y")
    r0, r1 = function([x, y], _TwoOutputs(lambda a: a * 2)(x, y),
                      mode=_debug())([1, 2, 3, 4], [5, 6, 7, 8])
    np.testing.assert_array_equal(r0, [2, 4, 6, 8])
    np.testing.assert_array_equal(r1, [4, 6, 8])
    first = _TwoOutputs(lambda a: a * 1)(x, y)[0] * 2
    np.testing.assert_array_equal(function([x, y], first, mode=_debug())([1, 2, 3, 4],
                                                                         [5, 6, 7, 8]),
                                  [2, 4, 6, 8])


def test_outputs_sharing_memory_both_read_is_a_bad_view_map():
    x, y = T.dvectors("x", "y")
    c, d = _TwoOutputs(lambda a: a * 1)(x, y)
    f = function([x, y], c[1:] * 2 + d * 2, mode=_debug())
    with pytest.raises(BadViewMap):
        f([1, 2, 3, 4], [5, 6, 7, 8])


def test_finiteness_checks_of_the_registered_debug_mode(monkeypatch):
    monkeypatch.delitem(mode_module.predefined_modes, "DEBUG_MODE", raising=False)
    registered = mode_module.predefined_modes["DEBUG_MODE"]
    registered.check_c_code = False
    assert mode_module.get_mode("DEBUG_MODE") is registered
    x = T.dvector("x")
    f = function([x], (x + 2) * 5, mode="DEBUG_MODE")
    with pytest.raises(InvalidValueError):
        f(np.array([1.0, np.nan, 2.0]))
    registered.check_isfinite = False  # functions already compiled follow it
    assert np.isnan(f(np.array([1.0, np.nan, 2.0]))[1])
    monkeypatch.delitem(mode_module.predefined_modes, "DEBUG_MODE")
    assert mode_module.get_mode("DEBUG_MODE") is not registered


def test_tensor_type_helpers_of_theano_ops():
    vtype = T.TensorType("float32", (True, False))
    zeros = vtype.value_zeros((1, 3))
    assert zeros.dtype == np.float32 and zeros.shape == (1, 3) and not zeros.any()
    assert T.TensorType.filter_checks_isfinite is False
    try:
        T.TensorType.filter_checks_isfinite = True
        with pytest.raises(ValueError, match="non-finite"):
            T.dvector().type.filter(np.array([1.0, np.inf]))
    finally:
        T.TensorType.filter_checks_isfinite = False
