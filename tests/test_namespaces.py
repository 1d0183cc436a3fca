"""The top-level namespace (``import jitgraph as theano``): Theano 1.0's names, lazily loaded.

Expected behaviour was recorded from Theano 1.0.5 (``theano-oracle``) and is written next to
each check.
"""

from __future__ import annotations

import importlib
import json
import logging
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T

#: the names Theano 1.0.5's modules define (a copy of the project's shared fixture)
API = json.loads((pathlib.Path(__file__).parent / "data" / "theano_api.json").read_text())

#: names of Theano's top level that belong to other issues (scan family, sparse)
ELSEWHERE = {"scan", "map", "reduce", "foldl", "foldr", "scan_checkpoints"}

#: top-level names provided by other packages: (module, attribute)
PROVIDED = {
    "Rop": ("jitgraph.gradient", "Rop"),
    "Lop": ("jitgraph.gradient", "Lop"),
    "subgraph_grad": ("jitgraph.gradient", "subgraph_grad"),
    "OpFromGraph": ("jitgraph.compile.builders", "OpFromGraph"),
    "as_op": ("jitgraph.compile.ops", "as_op"),
    "function_dump": ("jitgraph.compile.dump", "function_dump"),
    "ProfileStats": ("jitgraph.compile.profiling", "ProfileStats"),
    "Param": ("jitgraph.compile.io", "Param"),
    "SymbolicInput": ("jitgraph.compile.io", "SymbolicInput"),
    "SymbolicOutput": ("jitgraph.compile.io", "SymbolicOutput"),
    "OrderedUpdates": ("jitgraph.scan.updates", "OrderedUpdates"),
    "sparse_grad": ("jitgraph.sparse.subtensor_grad", "sparse_grad"),
}


def _provider(module: str, attr: str):
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        pytest.skip(f"{module}.{attr} does not exist yet (provided by another package)")


@pytest.mark.parametrize("name", sorted(PROVIDED))
def test_names_provided_by_other_packages_are_wired(name):
    value = _provider(*PROVIDED[name])
    assert getattr(theano, name) is value
    assert name in theano.__all__ and name in dir(theano)


# Names defined here or in long-standing modules: all present.
OWN = ["Apply", "CLinker", "Constant", "Container", "DualLinker", "FunctionGraph",
       "FunctionMaker", "Generic", "In", "InconsistencyError", "Linker", "LocalLinker", "Mode",
       "Op", "OpWiseCLinker", "OpenMPOp", "Out", "PerformLinker", "Type", "Variable",
       "change_flags", "clone", "config", "disable_log_handler", "dot", "function", "generic",
       "get_scalar_constant_value", "grad", "has_handlers", "object2", "pp", "pprint", "shared",
       "test"]


def test_own_top_level_names_exist():
    missing = [n for n in OWN if not hasattr(theano, n)]
    assert not missing
    assert set(OWN) <= set(theano.__all__) and set(OWN) <= set(dir(theano))


def test_fixture_names_are_all_accounted_for():
    names = set(API["theano"]) - ELSEWHERE
    assert names <= set(OWN) | set(PROVIDED)


# -- coverage of Theano 1.0.5's names (the fixture lists, per module, what Theano defined) ----

#: modules whose every fixture name must be present (checked by name; tests of what each name
#: does are next to the code: tests/test_namespaces_submodules.py and the package tests)
COMPLETE_MODULES = [
    "theano.compile", "theano.gradient", "theano.ifelse", "theano.printing",
    "theano.sandbox.rng_mrg", "theano.scan_module", "theano.tensor.nnet", "theano.tensor.nnet.bn",
    "theano.tensor.nnet.neighbours", "theano.tensor.raw_random",
    "theano.tensor.shared_randomstreams", "theano.tensor.signal.conv",
    "theano.tensor.signal.pool",
]

#: issue 18's acceptance: the share of the fixture's names outside theano.sparse
REQUIRED_SHARE_OUTSIDE_SPARSE = 0.85


def missing_names(module: str) -> list[str]:
    """The fixture names of Theano's ``module`` that ``import jitgraph as theano`` lacks."""
    try:
        mod = importlib.import_module("jitgraph" + module[len("theano"):])
    except ImportError:
        return list(API[module])
    return [name for name in API[module] if not hasattr(mod, name)]


@pytest.mark.parametrize("module", COMPLETE_MODULES)
def test_module_has_all_of_theanos_names(module):
    assert missing_names(module) == []


def test_top_level_has_all_of_theanos_names():
    assert missing_names("theano") == []


def test_optional_submodules_are_attributes_but_not_star_exported():
    """``jitgraph.dask`` needs the dask extra: reachable as an attribute, never imported by
    ``from jitgraph import *``; ``jitgraph.sparse`` imports without SciPy."""
    assert "dask" not in theano.__all__
    assert "sparse" in theano.__all__
    assert theano.sparse_grad is theano.sparse.sparse_grad


def test_share_of_theano_names_outside_sparse():
    modules = [m for m in API if m != "theano.sparse"]
    total = sum(len(API[m]) for m in modules)
    missing = {m: missing_names(m) for m in modules}
    present = total - sum(len(v) for v in missing.values())
    assert present / total >= REQUIRED_SHARE_OUTSIDE_SPARSE, \
        {m: v for m, v in missing.items() if v}


def test_a_lazy_name_whose_provider_lacks_it_is_absent(monkeypatch):
    monkeypatch.setitem(theano._LAZY, "NotThere", ("jitgraph.graph.utils", "not_there"))
    monkeypatch.setitem(theano._LAZY, "NoModule", ("jitgraph.no_such_module", "x"))
    for name in ("NotThere", "NoModule"):
        assert not hasattr(theano, name)
        assert name not in theano.__all__ and name not in dir(theano)
    with pytest.raises(AttributeError, match="NotThere"):
        theano.NotThere  # noqa: B018


def test_graph_classes_are_jitgraphs():
    from jitgraph.graph import basic, fg, op, type as gtype, utils

    assert theano.Constant is basic.Constant and theano.Apply is basic.Apply
    assert theano.Op is op.Op and theano.Type is gtype.Type
    assert theano.Generic is gtype.GenericType and theano.generic is gtype.generic
    assert theano.InconsistencyError is fg.InconsistencyError
    assert theano.object2 is utils.object2
    assert theano.LocalLinker is theano.Linker
    from jitgraph.graph.replace import clone

    assert theano.clone is clone and theano.scan_module.clone is clone


def test_scan_is_callable_after_its_package_is_imported():
    # importing jitgraph.scan binds jitgraph.scan to the package; Theano's theano.scan is the
    # function, so the package calls it
    code = ("import jitgraph as theano, jitgraph.tensor as T, jitgraph.scan.op\n"
            "r, _ = theano.scan(lambda a: a * 2, sequences=T.arange(3))\n"
            "print(r.eval().tolist(), theano.scan.Scan is jitgraph.scan.op.Scan)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[0, 2, 4] True"


def test_import_stays_light():
    code = ("import sys, jitgraph; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('numba', 'scipy', 'cupy', 'pydot') or m.startswith(('jitgraph.tensor', "
            "'jitgraph.compile', 'jitgraph.scan'))]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


# -- dot, get_scalar_constant_value -------------------------------------------------------

def test_dot_uses_the_operands_product():
    x, y = T.dvector("x"), T.dmatrix("y")
    out = theano.dot(x, y)
    assert out.type == T.dvector
    xv, yv = np.arange(2.0), np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(out.eval({x: xv, y: yv}), xv @ yv)
    # A value operand is fine when the other one is symbolic (Theano: dot.0 for both).
    np.testing.assert_allclose(theano.dot(x, [1.0, 2.0]).eval({x: xv}), xv @ [1.0, 2.0])
    np.testing.assert_allclose(theano.dot(T.constant([1.0, 2.0]), y).eval({y: yv}),
                               [1.0, 2.0] @ yv)
    with pytest.raises(NotImplementedError):  # Theano: "Dot failed for the following reasons"
        theano.dot(2, 3)


def test_get_scalar_constant_value():
    assert theano.get_scalar_constant_value(T.constant(3.0)) == 3.0
    assert theano.get_scalar_constant_value(3) == 3
    with pytest.raises(T.NotScalarConstantError):
        theano.get_scalar_constant_value(T.dvector("x"))


# -- logging --------------------------------------------------------------------------------

def _logging_state(configure_root: bool) -> list:
    code = ("import logging, json\n"
            + ("logging.basicConfig()\n" if configure_root else "")
            + "import jitgraph as theano\n"
            "lg = logging.getLogger('jitgraph')\n"
            "state = [len(lg.handlers), lg.level, [h.formatter._fmt for h in lg.handlers if "
            "h.formatter], theano.has_handlers(lg), theano.has_handlers(logging.getLogger("
            "'jitgraph.x')), theano.has_handlers(logging.getLogger('zzz'))]\n"
            "theano.disable_log_handler(); state.append(len(lg.handlers))\n"
            "theano.disable_log_handler(); state.append(len(lg.handlers))\n"
            "print(json.dumps(state))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def test_logger_set_up_as_theano_did():
    # Theano 1.0.5, root logger unconfigured: one handler, WARNING, this format; True True False.
    assert _logging_state(False) == [1, logging.WARNING, ["%(levelname)s (%(name)s): %(message)s"],
                                     True, True, False, 0, 0]
    # After logging.basicConfig(): no handler of its own; every logger reaches root's handler.
    assert _logging_state(True) == [0, logging.WARNING, [], True, True, True, 0, 0]


def test_has_handlers_follows_propagation():
    lg = logging.getLogger("jitgraph.test_namespaces.isolated")
    lg.propagate = False
    try:
        assert not theano.has_handlers(lg)
        handler = logging.NullHandler()
        lg.addHandler(handler)
        assert theano.has_handlers(lg)
        theano.disable_log_handler(lg, handler)
        assert not lg.handlers
    finally:
        lg.propagate = True


# -- theano.test ------------------------------------------------------------------------------

def test_test_runs_the_suite_through_pytest(monkeypatch):
    import pytest as pytest_module

    from jitgraph import self_test

    calls = []
    monkeypatch.setattr(pytest_module, "main", lambda args: calls.append(args) or 0)
    assert theano.test("-x") == 0
    assert calls == [[str(self_test.TESTS_DIR), "-x"]]


def test_test_without_a_checkout_explains(monkeypatch, tmp_path):
    from jitgraph import self_test

    monkeypatch.setattr(self_test, "TESTS_DIR", tmp_path / "tests")
    with pytest.raises(RuntimeError, match="source checkout"):
        theano.test()


# -- Container ------------------------------------------------------------------------------

def test_container_filters_values_through_its_type():
    x = T.dvector("x")
    c = theano.Container(x, [None])
    assert (str(c), c.name, c.type, c.readonly, c.strict) == ("<None>", "x", x.type, False, False)
    c.value = [1, 2]  # Theano: array([1., 2.])
    assert c.data.dtype == np.float64 and c.storage[0].tolist() == [1.0, 2.0]
    with pytest.raises(TypeError):  # Theano: wrong number of dimensions
        c.value = [[1]]
    c.value = None
    assert c.storage == [None]
    c.data = [4.0, 5.0]
    assert c.storage[0].tolist() == [4.0, 5.0]
    assert str(theano.Container(x, [np.arange(3.0)])) == "<[0. 1. 2.]>"


def test_container_options():
    x = T.dvector("x")
    ro = theano.Container(x.type, [np.zeros(2)], readonly=True, name="n")
    assert ro.name == "n"
    with pytest.raises(Exception, match="n"):  # Theano: Cannot set readonly storage: n
        ro.value = [1.0, 2.0]
    strict = theano.Container(x, [None], strict=True)
    with pytest.raises(TypeError):  # Theano: expected a ndarray object
        strict.value = [1.0, 2.0]
    strict.value = np.array([1.0, 2.0])
    down = theano.Container(T.fvector(), [None], allow_downcast=True)
    down.value = [1.5, 2.2]
    assert down.value.dtype == np.float32
    with pytest.raises(TypeError):  # Theano: cannot store float64 without loss of precision
        theano.Container(T.fvector(), [None]).value = np.array([1.5])
    for bad in (None, [], (1,)):
        with pytest.raises(TypeError, match="storage must be a list"):
            theano.Container(x, bad)
    import copy

    c = theano.Container(x, [np.ones(2)])
    d = copy.deepcopy(c)
    assert d.storage is not c.storage and d.storage[0] is not c.storage[0]
    assert (d.type, d.name) == (c.type, c.name)


# -- linkers --------------------------------------------------------------------------------

@pytest.mark.parametrize("linker", ["PerformLinker", "LocalLinker", "CLinker", "OpWiseCLinker",
                                    "DualLinker"])
def test_theano_linker_classes_compile_functions(linker):
    x = T.dvector("x")
    f = theano.function([x], T.exp(x) * 2 + 1, mode=theano.Mode(linker=getattr(theano, linker)()))
    v = np.linspace(-1, 1, 5)
    np.testing.assert_allclose(f(v), np.exp(v) * 2 + 1)


def test_c_linkers_map_to_the_compiled_linkers():
    assert theano.CLinker().name == "c" and theano.CLinker().strict
    assert theano.OpWiseCLinker().name == "c|py" and not theano.OpWiseCLinker().strict
    assert theano.OpWiseCLinker(fallback_on_perform=False).strict
    with pytest.raises(TypeError, match="checker"):
        theano.DualLinker(checker=lambda a, b: True)


def test_clinker_schedule_orders_the_nodes():
    seen = []

    def schedule(fgraph):
        order = fgraph.toposort()
        seen.append(len(order))
        return order

    x = T.dvector("x")
    f = theano.function([x], T.exp(x) + T.log(x),
                        mode=theano.Mode(linker=theano.CLinker(schedule=schedule)))
    np.testing.assert_allclose(f(np.array([1.0, 2.0])), np.exp([1.0, 2.0]) + np.log([1.0, 2.0]))
    assert seen


def test_clinker_names_an_op_without_compiled_code():
    class PyOnly(theano.Op):
        __props__ = ()

        def make_node(self, x):
            x = T.as_tensor_variable(x)
            return theano.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0] * 2

    x = T.dvector("x")
    with pytest.raises(Exception, match="PyOnly"):
        theano.function([x], PyOnly()(x), mode=theano.Mode(linker=theano.CLinker()))
    f = theano.function([x], PyOnly()(x), mode=theano.Mode(linker=theano.OpWiseCLinker()))
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])


# -- OpenMPOp -----------------------------------------------------------------------------------

class _Doubler(theano.OpenMPOp):
    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2


def test_openmp_op_takes_the_flag():
    # Theano: False with openmp=False, True when given or under change_flags(openmp=True);
    # openmp is not part of the op's identity.
    assert _Doubler().openmp is False and _Doubler(openmp=True).openmp is True
    with theano.change_flags(openmp=True):
        assert _Doubler().openmp is True
    assert _Doubler() == _Doubler(openmp=True)
    assert _Doubler.test_gxx_support()
    x = T.dvector()
    np.testing.assert_array_equal(theano.function([x], _Doubler()(x))([1.0, 2.0]), [2.0, 4.0])


# -- OrderedUpdates -------------------------------------------------------------------------

def test_ordered_updates_as_in_theano():
    OrderedUpdates = _provider("jitgraph.scan.updates", "OrderedUpdates")
    s = theano.shared(1.0, name="s")
    t = theano.shared(2.0, name="t")
    u = OrderedUpdates()
    u[s] = s + 1
    u[s] = s * 2  # Theano: item assignment overwrites
    assert len(u) == 1 and u[s].owner.op == (s * 2).owner.op
    with pytest.raises(TypeError):  # keys must be shared variables
        u["a"] = 1
    with pytest.raises(TypeError):
        u[T.dscalar("x")] = 1
    with pytest.raises(KeyError):  # Theano: KeyError('Collision', s)
        u.update({s: s})
    both = u + {t: t}
    assert isinstance(both, OrderedUpdates) and list(both) == [s, t]
    assert list({t: t} + u) == [t, s]
    with pytest.raises(KeyError):
        u + OrderedUpdates([(s, s)])
    f = theano.function([], [], updates=both)
    f()
    assert (s.get_value(), t.get_value()) == (2.0, 2.0)


# -- gof ------------------------------------------------------------------------------------

def test_gof_alias_module():
    from jitgraph.gof import graph as gof_graph
    from jitgraph.gof.utils import MethodNotDefined

    from jitgraph.graph import basic, utils

    gof = theano.gof
    assert gof.Op is theano.Op and gof.Apply is theano.Apply and gof.Variable is theano.Variable
    assert gof.Constant is theano.Constant and gof.Type is theano.Type
    assert gof.Generic is theano.Generic and gof.generic is theano.generic
    assert gof.FunctionGraph is theano.FunctionGraph and gof.Container is theano.Container
    assert gof.OpenMPOp is theano.OpenMPOp and gof.CLinker is theano.CLinker
    assert MethodNotDefined is utils.MethodNotDefined
    assert gof_graph.Apply is basic.Apply  # inputs/ancestors: Theano's order, see graph tests
    x, y = T.dvectors("x y")
    found = gof_graph.inputs([x * y + 1])  # Theano: [x, y, TensorConstant{1}]
    assert found[:2] == [x, y] and len(found) == 3 and isinstance(found[2], theano.Constant)
    with pytest.raises(Exception, match="C-code"):
        gof.ParamsType(x=T.dscalar)


def test_theano_program_with_typed_constructors_runs_unchanged():
    # A Theano 1.0 program: x.type is T.dscalar; outputs recorded from Theano 1.0.5.
    x = T.dscalar("x")
    w = theano.shared(np.array([1.0, 2.0]), name="w")
    y = theano.dot(w, T.stack([x, x * x]))
    f = theano.function([x], [y, theano.grad(y, x)], updates=[(w, w * 0.5)])
    assert x.type is T.dscalar
    assert [float(v) for v in f(3.0)] == [21.0, 13.0]
    assert [float(v) for v in f(3.0)] == [10.5, 6.5]
