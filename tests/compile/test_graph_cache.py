"""Rewritten graphs in the compiledir (:mod:`jitgraph.compile.graph_cache`)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.cache.store import CacheWarning
from jitgraph.compile import graph_cache
from jitgraph.compile.function import FunctionMaker
from jitgraph.compile.mode import Mode
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op


def _paths():
    import importlib

    return importlib.import_module("jitgraph.config.paths")


@pytest.fixture
def graphs_dir(tmp_path, monkeypatch):
    """Graphs go to a folder of this test only."""
    from jitgraph.rewrite import db

    monkeypatch.setattr(_paths(), "ensure_compiledir", lambda cfg=None: str(tmp_path))
    # other test modules register rewrites of their own, which turns the cache off
    monkeypatch.setattr(db, "changed_outside_jitgraph", False)
    from jitgraph.cache.store import GRAPHS

    return tmp_path / GRAPHS


def _training(seed: int = 0, const: float = 0.01):
    """A logistic-regression step: shared weights, an update, constants and in-place ops."""
    rng = np.random.default_rng(seed)
    x, y = T.dmatrix("x"), T.dvector("y")
    w = jitgraph.shared(rng.standard_normal(5), name="w")
    b = jitgraph.shared(0.0, name="b")
    p = 1 / (1 + T.exp(-T.dot(x, w) - b))
    cost = (-y * T.log(p) - (1 - y) * T.log(1 - p)).mean() + const * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    fn = jitgraph.function([x, y], [p > 0.5, cost], updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
    return fn, w, b


def _data():
    rng = np.random.default_rng(1)
    return rng.standard_normal((20, 5)), (rng.random(20) > 0.5).astype("float64")


def test_second_compile_of_the_same_graph_loads_the_rewritten_graph(graphs_dir):
    first, w1, b1 = _training()
    second, w2, b2 = _training()
    assert not first.maker.graph_from_cache
    assert second.maker.graph_from_cache
    assert len(list(graphs_dir.glob("g*.pkl"))) == 1
    ops = [type(n.op).__name__ for n in first.maker.fgraph.toposort()]
    assert [type(n.op).__name__ for n in second.maker.fgraph.toposort()] == ops
    x, y = _data()
    for _ in range(3):
        out1, out2 = first(x, y), second(x, y)
        np.testing.assert_array_equal(out1[0], out2[0])
        assert out1[1] == out2[1]
    np.testing.assert_array_equal(w1.get_value(), w2.get_value())  # the updates ran
    assert b1.get_value() == b2.get_value() != 0.0


def test_each_stored_graph_is_described_for_the_cache_command(graphs_dir):
    """Beside each pickled graph, its description in the compiledir's metadata schema (what
    ``jitgraph-cache`` lists without unpickling anything); a damaged graph is deleted with it."""
    from jitgraph.cache import metadata

    fn, _, _ = _training()
    (entry,) = graphs_dir.glob("g*.pkl")
    info = metadata.parse(entry.with_suffix(".json").read_bytes(), metadata.GRAPH_FILE)
    assert info.kind == metadata.GRAPH and info.schema == metadata.SCHEMA_VERSION
    assert info.details["bytes"] == entry.stat().st_size
    assert info.details["nodes"] == len(fn.maker.fgraph.apply_nodes)
    assert info.details["inputs"] == 4 and info.details["program"] is True
    assert 0 < info.compile_seconds["rewrite"] == pytest.approx(
        fn.maker.compile_times["rewrite"], abs=1e-3)
    entry.write_bytes(b"not a pickle")
    with pytest.warns(CacheWarning, match="rewritten again"):
        _training()
    assert metadata.parse(entry.with_suffix(".json").read_bytes(),
                          metadata.GRAPH_FILE).details["bytes"] == entry.stat().st_size


def test_key_reflects_constants_flags_mode_and_mutable_inputs(graphs_dir):
    def key(const=2.0, mutable=(), mode=None, dtype="float64"):
        x = T.vector("x", dtype=dtype)
        fg = FunctionGraph([x], [T.exp(x) * const], clone=True)
        return graph_cache.graph_key(fg, list(mutable), mode or Mode())

    base = key()
    assert base == key(), "the same graph, built again, has the same key"
    assert key(const=3.0) != base
    assert key(mutable=[0]) != base
    assert key(dtype="float32") != base
    assert key(mode=Mode(optimizer="fast_compile")) != base
    assert key(mode=Mode().excluding("fusion")) != base
    with jitgraph.config.change_flags(on_opt_error="ignore"):
        assert key() != base


def test_large_constants_are_keyed_by_value_not_identity(graphs_dir):
    def key(values):
        x = T.dvector("x")
        fg = FunctionGraph([x], [x + T.constant(values)], clone=True)
        return graph_cache.graph_key(fg, [], Mode())

    big = np.arange(100_000.0)
    assert key(big) == key(big.copy())
    changed = big.copy()
    changed[-1] += 1
    assert key(big) != key(changed)


class _CallbackOp(Op):
    """An op whose parameter is a Python function: no exact text form."""

    __props__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = self.fn(inputs[0])


def test_graph_with_an_unkeyable_parameter_is_rewritten_not_cached(graphs_dir):
    x = T.dvector("x")
    fn = jitgraph.function([x], _CallbackOp(np.negative)(T.exp(x)))
    assert graph_cache.graph_key(fn.maker.fgraph, [], Mode()) is None
    again = jitgraph.function([x], _CallbackOp(np.negative)(T.exp(x)))
    assert not again.maker.graph_from_cache
    np.testing.assert_allclose(again(np.zeros(3)), -np.ones(3))
    assert not list(graphs_dir.glob("g*.pkl"))


def test_modes_that_watch_the_rewrites_are_not_cached(graphs_dir):
    from jitgraph.compile.debugmode import DebugMode

    x = T.dvector("x")
    fg = FunctionGraph([x], [T.exp(x)], clone=True)
    assert graph_cache.graph_key(fg, [], DebugMode()) is None
    for flag in ("profile", "profile_optimizer", "optimizer_verbose"):
        with jitgraph.config.change_flags(**{flag: True}):
            assert graph_cache.graph_key(fg, [], Mode()) is None, flag


def test_rewrites_registered_by_user_code_turn_the_cache_off(graphs_dir):
    from jitgraph.rewrite import db

    x = T.dvector("x")
    fg = FunctionGraph([x], [T.exp(x)], clone=True)
    assert graph_cache.graph_key(fg, [], Mode()) is not None
    from jitgraph.rewrite import node_rewriter, optdb

    @node_rewriter(None)
    def user_rewrite(fgraph, node):
        return False

    optdb.register("test_graph_cache_user_rewrite", user_rewrite, "test_only", position=99.5)
    try:
        assert db.changed_outside_jitgraph
        assert graph_cache.graph_key(fg, [], Mode()) is None
    finally:
        optdb.unregister("test_graph_cache_user_rewrite")


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other-key"])
def test_damaged_entry_is_deleted_and_the_graph_rewritten(graphs_dir, damage):
    _training()
    (entry,) = graphs_dir.glob("g*.pkl")
    data = entry.read_bytes()
    if damage == "garbage":
        entry.write_bytes(b"not a pickle")
    elif damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    else:
        import io

        from jitgraph.compile import graph_cache

        fmt, key, inputs, order, outputs, program = graph_cache._Unpickler(
            io.BytesIO(data), list(range(100))).load()  # stand-ins for the graph's inputs
        entry.write_bytes(graph_cache._dumps(
            (fmt, key + "\nsomething else", inputs, order, outputs, program)))
    with pytest.warns(CacheWarning, match="rewritten again"):
        fn, _, _ = _training()
    assert not fn.maker.graph_from_cache
    x, y = _data()
    reference, _, _ = _training()
    assert reference.maker.graph_from_cache  # the entry was written again, whole
    np.testing.assert_array_equal(fn(x, y)[0], reference(x, y)[0])


def test_unwritable_folder_only_costs_the_rewrite(graphs_dir, monkeypatch):
    paths = _paths()

    def refuse(cfg=None):
        raise jitgraph.config.ConfigError("no compiledir here")

    monkeypatch.setattr(paths, "ensure_compiledir", refuse)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn, _, _ = _training()
    assert not fn.maker.graph_from_cache
    x, y = _data()
    assert fn(x, y)[1] > 0


def test_disabled_by_environment(graphs_dir, monkeypatch):
    monkeypatch.setenv("JITGRAPH_GRAPH_CACHE", "0")
    _training()
    fn, _, _ = _training()
    assert not fn.maker.graph_from_cache
    assert not graphs_dir.exists()


def test_maker_with_an_explicit_graph_bypasses_the_cache(graphs_dir):
    x = T.dvector("x")
    fg = FunctionGraph([x], [T.exp(x)], clone=True)
    maker = FunctionMaker([x], T.exp(x), Mode(), fgraph=fg, rewrite=False)
    assert not maker.graph_from_cache and not graphs_dir.exists()


def test_cached_graph_keeps_the_node_order_of_its_in_place_ops(graphs_dir):
    from jitgraph.compile.rewriting import schedule

    first, _, _ = _training()
    again, _, _ = _training()
    assert again.maker.graph_from_cache
    fgraph = again.maker.fgraph
    assert any(n.op.destroy_map for n in fgraph.apply_nodes), "the training graph updates in place"
    stored = fgraph.stored_order
    assert schedule(fgraph) == stored
    # the order is the one the rewritten graph had: same ops in the same positions
    assert [str(n.op) for n in stored] == [str(n.op) for n in schedule(first.maker.fgraph)]
    fgraph.stored_order = stored[:-1]  # does not cover the graph: recomputed, not trusted
    assert sorted(map(str, schedule(fgraph))) == sorted(map(str, stored))


def test_storing_takes_the_order_the_program_was_linked_with(graphs_dir, monkeypatch):
    """The graph is stored with its program's order, not scheduled a second time (issue 31)."""
    import importlib

    from jitgraph.compile import rewriting

    function_module = importlib.import_module("jitgraph.compile.function")
    scheduled = []

    def counted(fgraph):
        scheduled.append(fgraph)
        return rewriting.schedule(fgraph)

    monkeypatch.setattr(function_module, "schedule", counted)
    first, _, _ = _training()
    assert scheduled == []
    again, _, _ = _training()
    assert again.maker.graph_from_cache
    assert [str(n) for n in again.maker.program.order] == \
        [str(n) for n in first.maker.program.order]
    x, y = _data()
    np.testing.assert_array_equal(again(x, y)[1], first(x, y)[1])


def test_cached_graph_comes_with_its_linked_program(graphs_dir):
    first, _, _ = _training()
    again, _, _ = _training()
    assert again.maker.graph_from_cache
    assert getattr(again.maker.program, "restored", False), "linked from the stored program"
    assert again.maker.program.driver_source == first.maker.program.driver_source
    x, y = _data()
    for _ in range(3):  # the same updates, step by step
        for got, want in zip(again(x, y), first(x, y)):
            np.testing.assert_allclose(got, want, rtol=1e-12)


_USER_OP = '''
import jitgraph as theano, jitgraph.tensor as T

class SwapShapeOp(theano.Op):
    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0].T.copy()

    def infer_shape(self, node, shapes):
        return {SHAPES}
'''


def test_editing_a_user_op_is_not_answered_from_the_cache(tmp_path):
    """A user edits their op's infer_shape between two runs: the second run must rewrite the
    graph with the new code (the op's class and props alone are unchanged)."""
    import subprocess
    import sys
    import textwrap

    module = tmp_path / "user_op.py"
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, jitgraph, jitgraph.tensor as T
        from user_op import SwapShapeOp
        x = T.dmatrix("x")
        f = jitgraph.function([x], SwapShapeOp()(x).shape)
        print(tuple(int(v) for v in f(np.zeros((2, 3)))), f.maker.graph_from_cache)
    """))
    env = {**__import__("os").environ,
           "JITGRAPH_FLAGS": f"base_compiledir={tmp_path / 'compiledir'}"}

    def run(shapes: str) -> str:
        source = _USER_OP.replace("{SHAPES}", shapes)
        if not module.exists() or module.read_text() != source:
            module.write_text(source)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    assert run("[(shapes[0][0], shapes[0][1])]  # wrong") == "(2, 3) False"
    assert run("[(shapes[0][0], shapes[0][1])]  # wrong") == "(2, 3) True"
    assert run("[(shapes[0][1], shapes[0][0])]") == "(3, 2) False"


def test_a_cached_graph_holds_the_compiling_functions_own_variables(graphs_dir):
    """A graph from the cache is bound to the new function's inputs and shared variables: no
    copy of a shared variable (with the value it had when the entry was written) comes back."""
    import pickle

    def build(value):
        w = jitgraph.shared(np.full((2, 3), value), name="W")
        x = T.dmatrix("x")
        return jitgraph.function([x], T.dot(x, w.T).sum(), updates=[(w, w * 2)]), w, x

    first, _, _ = build(0.5)
    second, w, x = build(1.0)
    assert second.maker.graph_from_cache
    assert second.maker.fgraph.inputs[1] is w
    assert second(np.ones((1, 3))) == 6.0 and w.get_value()[0, 0] == 2.0
    again = pickle.loads(pickle.dumps(second))
    values = [v.get_value()[0, 0] for v in again.maker.fgraph.inputs if hasattr(v, "get_value")]
    assert values == [2.0]  # the function's own W, not the cache's copy of the first one's
    assert again(np.ones((1, 3))) == 12.0


def _deep_chain(depth: int):
    x = T.dmatrix("x")
    w = jitgraph.shared(np.eye(3) * 0.5, name="w")
    y = x
    for _ in range(depth):
        y = T.dot(y, w)  # one node per step: fusion cannot shorten the chain
    return jitgraph.function([x], y)


def test_a_graph_deeper_than_the_recursion_limit_is_cached(graphs_dir):
    # pickling follows each chain of variables recursively: a deep graph (a ResNet's training
    # function) failed with RecursionError and was silently never cached
    import sys

    depth = sys.getrecursionlimit() + 200
    first = _deep_chain(depth)
    second = _deep_chain(depth)
    assert not first.maker.graph_from_cache
    assert second.maker.graph_from_cache
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(second(value), first(value))


def test_a_deep_graph_is_stored_without_deep_recursion(graphs_dir, monkeypatch):
    """The nodes are pickled in their order before the outputs: a chain longer than the
    recursion limit is written in the caller's thread, with no retry in a thread with a deep
    stack (issue 31: the retry pickled the graph twice)."""
    import sys

    def refuse(fn):
        raise AssertionError("pickled in a deep thread")

    monkeypatch.setattr(graph_cache, "_in_deep_thread", refuse)
    x = T.dmatrix("x")
    w = jitgraph.shared(np.eye(3) * 0.5, name="w")
    y = x
    for _ in range(sys.getrecursionlimit() + 200):
        y = T.dot(y, w)
    fgraph = FunctionGraph([x, w], [y], clone=False)
    order = fgraph.toposort()
    graph_cache.store("a deep chain", fgraph.inputs, fgraph.outputs, order)
    found = graph_cache.load("a deep chain", fgraph.inputs)
    assert found is not None, "not stored"
    inputs, outputs, stored_order, _ = found
    assert inputs == fgraph.inputs and len(stored_order) == len(order)
    assert [n.op for n in stored_order] == [n.op for n in order]
    assert outputs[0].owner is stored_order[-1]


def test_references_are_reductions_asked_once_per_new_object(graphs_dir, monkeypatch):
    """The pickler asks about references for new objects of classes of their own only, not
    for each number, string and container it meets (issue 31: 260000 persistent_id calls
    for a 1500-node graph and its program)."""
    import io

    first, _, _ = _training()
    fgraph = first.maker.fgraph
    asked = []
    original = graph_cache._Pickler.reducer_override

    def counted(self, obj):
        asked.append(type(obj))
        return original(self, obj)

    monkeypatch.setattr(graph_cache._Pickler, "reducer_override", counted)
    stored = first.maker.program.stored()
    graph_cache._Pickler(io.BytesIO(), fgraph.inputs).dump(
        (list(fgraph.inputs), fgraph.toposort(), list(fgraph.outputs), stored))
    assert asked and not {int, str, tuple, list, dict, type(None)} & set(asked)


def test_key_writes_each_op_once_and_tells_plain_values_apart(graphs_dir, monkeypatch):
    """Nodes sharing an op have its text written once (issue 31: 4321 nodes, 2056 ops); flat
    tuples are written by repr, which tells 1 from True and from '1'."""
    x = T.dvector("x")
    y = x
    for _ in range(10):
        y = T.exp(y)  # one Elemwise op object for every node
    fgraph = FunctionGraph([x], [y], clone=False)
    written = []
    original = graph_cache._op_token
    monkeypatch.setattr(graph_cache, "_op_token", lambda op: written.append(op) or original(op))
    key = graph_cache.graph_key(fgraph, [], jitgraph.compile.mode.get_default_mode())
    assert key is not None and key.count("\nnode ") == 10
    # the Elemwise and its scalar op, once (20 times before: once per node)
    assert len(written) == len({id(op) for op in written}) == 2
    tokens = {graph_cache._value_token(v) for v in [(1,), (True,), ("1",), (1.0,), ((1,),), 1]}
    assert len(tokens) == 6


def test_remembered_type_texts_are_the_texts_themselves(graphs_dir, monkeypatch):
    """Tensor types' texts are remembered per key by (type, name): the key is the same text as
    without the memo, and equal types of other names keep their own text."""
    from jitgraph.tensor.core.type import TensorType

    x = T.dvector("x")
    named = TensorType("float64", (False,), name="Named")("n")
    y = T.exp(x) + named
    fgraph = FunctionGraph([x, named], [y * 2, T.exp(named)], clone=False)
    remembered = graph_cache._graph_lines(fgraph)
    monkeypatch.setattr(graph_cache, "TensorType", type("NoTensorType", (), {}))
    assert graph_cache._graph_lines(fgraph) == remembered
    assert "Named>" in "\n".join(remembered) and "TensorType(float64, vector)>" in remembered[0]


def test_source_fingerprint_changes_with_every_python_source_file(tmp_path):
    """The key's source part: editing, adding, renaming or removing a .py file anywhere
    under the package (a stale fingerprint would serve graphs rewritten by other code)
    changes it; bytecode and hidden folders do not."""
    import os

    pkg = tmp_path / "pkg"
    (pkg / "sub" / "deeper").mkdir(parents=True)
    (pkg / "__pycache__").mkdir()
    (pkg / ".hidden").mkdir()
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "deeper" / "b.py").write_text("y = 2\n")
    last = [graph_cache.source_fingerprint(str(pkg))]

    def changed() -> bool:
        new = graph_cache.source_fingerprint(str(pkg))
        fresh = new != last[0]
        last[0] = new
        return fresh

    assert not changed()  # deterministic
    (pkg / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (pkg / ".hidden" / "c.py").write_text("")
    (pkg / "notes.txt").write_text("")
    assert not changed()
    b = pkg / "sub" / "deeper" / "b.py"
    b.write_text("y = 3\n")  # same size: the modification time tells
    st = b.stat()
    os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert changed()
    b.write_text("y = 33\n")
    assert changed()
    (pkg / "sub" / "new.py").write_text("")
    assert changed()
    (pkg / "sub" / "new.py").rename(pkg / "sub" / "renamed.py")
    assert changed()
    (pkg / "sub" / "renamed.py").unlink()
    assert changed()
    (pkg / "sub" / "deeper" / "b.py").rename(pkg / "sub" / "b.py")  # moved to another folder
    assert changed()


def test_source_fingerprint_is_jitgraphs_own():
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(graph_cache.__file__)))
    assert graph_cache._source_fingerprint() == graph_cache.source_fingerprint(root)
