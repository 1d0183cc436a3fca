"""The theano.compile namespace: every name Theano 1.0.5 defines there exists and works.

Expected values were recorded by running the same programs under Theano 1.0.5 (the oracle).
"""

from __future__ import annotations

import io
import json
import os
import pickle
import sys

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.compile as C
import jitgraph.tensor as T
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError

API = os.path.join(os.path.dirname(__file__), "..", "data", "theano_api.json")


def test_every_theano_compile_name_exists():
    names = json.load(open(API))["theano.compile"] if os.path.exists(API) else C.__all__
    missing = [n for n in names if not hasattr(C, n)]
    assert not missing
    assert callable(C.function) and callable(C.pfunc)  # not the modules of the same names


def test_submodule_paths():
    from jitgraph.compile.builders import OpFromGraph
    from jitgraph.compile.function_module import FunctionMaker, std_fgraph
    from jitgraph.compile.ops import as_op
    from jitgraph.compile.pfunc import rebuild_collect_shared

    assert C.OpFromGraph is OpFromGraph and C.as_op is as_op and C.std_fgraph is std_fgraph
    assert C.FunctionMaker is FunctionMaker and C.rebuild_collect_shared is rebuild_collect_shared


# --- modes -----------------------------------------------------------------------------------

def test_optimizer_constants_are_the_levels_queries():
    assert C.OPT_FAST_RUN.include == ("fast_run",)
    assert C.OPT_FAST_RUN_STABLE.include == ("fast_run",)
    assert C.OPT_FAST_RUN_STABLE.require == ("stable",)
    assert C.OPT_MERGE.include == ("merge",) and C.OPT_NONE.include == ()
    assert set(C.OPT_O2.include) == {"fast_compile", "fusion"}
    assert C.OPT_O3.exclude == ("inplace",)
    assert C.OPT_STABILIZE.position_cutoff == 1.5000001
    assert "unsafe" in C.OPT_UNSAFE.include and "fast_compile" in C.OPT_FAST_COMPILE.include
    x = T.dvector()
    for query in (C.OPT_FAST_RUN, C.OPT_FAST_RUN_STABLE, C.OPT_STABILIZE, C.OPT_NONE):
        f = theano.function([x], T.exp(x) * 2, mode=C.Mode(optimizer=query))
        np.testing.assert_allclose(f(np.zeros(2)), [2.0, 2.0])


def test_fast_run_and_fast_compile():
    assert C.FAST_COMPILE.linker.name == "py" and C.FAST_COMPILE.optimizer == "fast_compile"
    assert C.FAST_RUN.optimizer == "fast_run" and C.FAST_RUN.linker.name in ("cvm", "vm")
    x = T.dvector()
    for mode in (C.FAST_RUN, C.FAST_COMPILE):
        np.testing.assert_array_equal(theano.function([x], x * 2, mode=mode)(np.ones(2)), [2, 2])


def test_register_mode_linker_optimizer():
    x = T.dvector()
    name = "TEST_NAMESPACE_MODE"
    if name not in C.mode.predefined_modes:
        C.register_mode(name, C.Mode(linker="py", optimizer="fast_compile"))
    assert C.get_mode(name).linker.name == "py"
    np.testing.assert_array_equal(theano.function([x], x * 2, mode=name)(np.ones(2)), [2, 2])
    with pytest.raises(ValueError, match=f"Mode name already taken: {name}"):
        C.register_mode(name, C.FAST_RUN)
    with pytest.raises(ValueError, match="Mode name already taken: FAST_RUN"):
        C.register_mode("FAST_RUN", C.FAST_RUN)

    if "test_ns_opt" not in C.mode.predefined_optimizers:
        C.register_optimizer("test_ns_opt", C.OPT_FAST_COMPILE)
    f = theano.function([x], x * 2, mode=C.Mode(linker="vm", optimizer="test_ns_opt"))
    np.testing.assert_array_equal(f(np.ones(2)), [2, 2])
    with pytest.raises(ValueError, match="Optimizer name already taken: test_ns_opt"):
        C.register_optimizer("test_ns_opt", C.OPT_FAST_COMPILE)

    from jitgraph.compile.linker import LINKERS, VMLinker

    if "test_ns_vm" not in LINKERS:
        C.register_linker("test_ns_vm", VMLinker(allow_gc=False))
    f = theano.function([x], x * 2, mode=C.Mode(linker="test_ns_vm", optimizer="fast_run"))
    np.testing.assert_array_equal(f(np.ones(2)), [2, 2])
    with pytest.raises(ValueError, match="Linker name already taken: cvm"):
        C.register_linker("cvm", VMLinker())


def test_a_graph_rewriter_as_optimizer_and_the_two_mode_rewriters(capsys):
    x = T.dvector("x")
    printer = C.PrintCurrentFunctionGraph("== graph now ==")
    f = theano.function([x], T.exp(x), mode=C.Mode(linker="py", optimizer=printer))
    assert "== graph now ==" in capsys.readouterr().out
    np.testing.assert_allclose(f(np.zeros(2)), [1.0, 1.0])
    with pytest.raises(TypeError, match="rewriter object"):
        C.Mode(optimizer=printer).including("fast_run")

    class Seen(Feature):
        attached = 0

        def on_attach(self, fgraph):
            Seen.attached += 1

    theano.function([x], x + 1, mode=C.Mode(optimizer=C.AddFeatureOptimizer(Seen())))
    assert Seen.attached == 1
    fg = FunctionGraph([x], [x * 2])
    C.AddDestroyHandler().rewrite(fg)
    assert getattr(fg, "destroy_handler", None) is not None


def test_optdb_takes_theano_style_registration_and_queries():
    from jitgraph.rewrite import node_rewriter

    seen = []

    @node_rewriter(None)
    def local_spy(fgraph, node):
        seen.append(str(node.op))

    db = C.optdb
    name = "test_namespace_spy"
    import jitgraph.rewrite.db as dbmodule

    outside_before = dbmodule.changed_outside_jitgraph  # (it turns the graph cache off)
    db.register(name, local_spy, 75, "test_namespace_tag")  # Theano: (name, obj, pos, *tags)
    try:
        assert db.position_of(name) == 75 and "test_namespace_tag" in db.tags_of(name)
        x = T.dvector()
        theano.function([x], T.exp(x), mode=C.Mode(linker="py", optimizer="fast_run")
                        .including("test_namespace_tag"))
        assert any("exp" in s for s in seen)
    finally:
        db.unregister(name)
        dbmodule.changed_outside_jitgraph = outside_before
    rewriter = db.query("+fast_run", "-inplace")
    assert len(rewriter.rewriters) > 3
    assert "merge1" in db and C.local_useless is db["useless"]


def test_debug_monitor_and_profile_names():
    x = T.dvector()
    calls = []
    monitor = C.MonitorMode(post_func=lambda i, node, fn: calls.append(i))
    theano.function([x], T.exp(x) * 2, mode=monitor)(np.ones(2))
    assert calls
    np.testing.assert_allclose(theano.function([x], x * 2, mode=C.DebugMode())(np.ones(2)), 2.0)
    prof = C.ProfileStats(atexit_print=False)
    f = theano.function([x], x * 2, profile=prof)
    f(np.ones(2))
    assert prof.fct_callcount == 1
    scan_prof = C.ScanProfileStats(atexit_print=False, name="loop")
    assert isinstance(scan_prof, C.ProfileStats)
    scan_prof.record_loop(steps=5, seconds=0.5, inner_seconds=0.25)
    text = scan_prof.summary()
    assert "Scan Op profiling ( loop )" in text and "a total of 5 steps" in text
    assert "(50.000%)" in text


# --- ops -------------------------------------------------------------------------------------

def test_shape_ops():
    x = T.dmatrix("x")
    assert isinstance(C.shape(x).owner.op, C.Shape)
    assert str(C.Shape_i(1)) == "Shape_i{1}"
    spec = C.specify_shape(x, (2, 3))
    assert isinstance(spec.owner.op, C.SpecifyShape)
    f = theano.function([x], [C.shape(x), C.Shape_i(1)(x), spec])
    s, s1, _ = f(np.ones((2, 3)))
    assert list(s) == [2, 3] and s1 == 3
    with pytest.raises(Exception, match="dimension 0"):
        f(np.ones((4, 3)))


def test_rebroadcast():
    x = T.dmatrix("x")
    r = C.Rebroadcast((0, True))(x)
    assert r.type.broadcastable == (True, False)
    assert str(r.owner.op) == "Rebroadcast{1}"  # Theano's printing
    assert str(C.Rebroadcast((1, False), (0, True))) == "Rebroadcast{1,0}"
    assert str(C.Rebroadcast()) == "Rebroadcast{}"
    assert C.Rebroadcast((0, True)) == C.Rebroadcast((0, True))
    assert C.Rebroadcast((0, True)) != C.Rebroadcast((0, False))
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = theano.function([x], r, mode=mode)
        np.testing.assert_array_equal(f(np.ones((1, 3))), [[1.0, 1.0, 1.0]])
        with pytest.raises(ValueError, match="dimension 0"):
            f(np.ones((2, 3)))
    g = T.grad(r.sum(), x)
    assert g.type == x.type
    np.testing.assert_array_equal(theano.function([x], g)(np.ones((1, 3))), [[1, 1, 1]])
    shape_fn = theano.function([x], r.shape)
    assert list(shape_fn(np.ones((1, 3)))) == [1, 3]


def test_deep_copy_and_view_op():
    v = T.dvector("v")
    assert str(C.deep_copy_op) == "DeepCopyOp" and str(C.view_op) == "ViewOp"
    assert C.deep_copy_op(v).type == v.type and C.view_op(v).type == v.type
    assert isinstance(C.deep_copy_op, C.DeepCopyOp) and isinstance(C.view_op, C.ViewOp)
    a = np.ones(3)
    for op in (C.deep_copy_op, C.view_op):
        out = theano.function([v], op(v))(a)
        np.testing.assert_array_equal(out, a)
        assert out is not a  # Theano 1.0.5: a copy in both cases
    copied = theano.function([v], C.deep_copy_op(v * 2))(a)
    np.testing.assert_array_equal(copied, 2 * a)


@pytest.mark.parametrize("hook, args", [
    ("register_deep_copy_op_c_code", (T.TensorType, "", 1)),
    ("register_view_op_c_code", (T.TensorType, "", 1)),
    ("register_shape_c_code", (T.TensorType, "", 1)),
    ("register_shape_i_c_code", (T.TensorType, "", "", 1)),
    ("register_specify_shape_c_code", (T.TensorType, "", 1)),
    ("register_rebroadcast_c_code", (T.TensorType, "", 1)),
])
def test_c_code_hooks_explain_there_is_no_c_backend(hook, args):
    from jitgraph.graph.c_code import CCodeUnavailableError

    with pytest.raises(CCodeUnavailableError, match="no C backend.*LLVM.*register_lowering"):
        getattr(C, hook)(*args)


def test_inline_ofg_expansion_is_the_node_rewriter():
    x = T.dscalar("x")
    op = C.OpFromGraph([x], [x * 2 + 1], inline=True)
    node = op(x).owner
    fg = FunctionGraph([x], [node.outputs[0]], clone=False)
    (expanded,) = C.inline_ofg_expansion.transform(fg, node)
    assert theano.function([x], expanded)(3.0) == 7.0
    not_inline = C.OpFromGraph([x], [x * 2])
    assert C.inline_ofg_expansion.transform(fg, not_inline(x).owner) is None


# --- pfunc, orig_function, rebuild_collect_shared, function_dump ------------------------------

@pytest.fixture
def shared_setup():
    x = T.dvector("x")
    s = theano.shared(np.ones(2), name="s")
    s2 = theano.shared(np.zeros(2), name="s2")
    s2.default_update = s2 + 1
    return x, s, s2


def test_rebuild_collect_shared(shared_setup):
    x, s, s2 = shared_setup
    y = T.dvector("y")
    out = x * s + s2
    ins, outs, (clone_d, update_d, update_expr, shared_inputs) = C.rebuild_collect_shared(
        out, inputs=[x], replace={y: x}, updates=[(s, s * 2)])
    assert ins[0] is x and outs is not out and theano.graph.basic.Variable in type(outs).__mro__
    assert [v for v, _ in update_expr] == [s, s2] and shared_inputs == [s, s2]  # Theano order
    assert set(update_d) == {s, s2} and clone_d[x] is x and clone_d[s] is s
    ins2, outs2, other2 = C.rebuild_collect_shared([out, x + 1], inputs=[x], copy_inputs_over=False)
    assert ins2[0] is not x and isinstance(outs2, list) and len(outs2) == 2
    assert C.rebuild_collect_shared(out, inputs=[x], no_default_updates=True)[2][2] == []
    wrapped = C.rebuild_collect_shared(C.Out(out, borrow=True), inputs=[x])[1]
    assert isinstance(wrapped, C.SymbolicOutput) and wrapped.borrow
    assert C.rebuild_collect_shared(out, replace={s: y})[2][3] == [s2]
    none_out = C.rebuild_collect_shared(None, inputs=[x], updates=[(s, s + 1)])
    assert none_out[1] == [] and [v for v, _ in none_out[2][2]] == [s]


def test_rebuild_collect_shared_order_and_errors():
    x = T.dvector("x")
    s, s4 = theano.shared(np.ones(2), name="s"), theano.shared(np.zeros(2), name="s4")
    s2, s3, s5 = (theano.shared(np.zeros(2), name=n) for n in ("s2", "s3", "s5"))
    s2.default_update, s3.default_update, s5.default_update = s2 + 1, s3 * 2, s5 + s4
    out = s3 + s2 + x * s
    _, _, (_, _, update_expr, shared_inputs) = C.rebuild_collect_shared(
        out, inputs=[x], updates=[(s, s * 2 + s5)])
    # Theano 1.0.5: [s3, s2, s, s5, s4] and updates s, s3, s2, s5
    assert [v.name for v in shared_inputs] == ["s3", "s2", "s", "s5", "s4"]
    assert [v.name for v, _ in update_expr] == ["s", "s3", "s2", "s5"]
    _, _, (_, _, update_expr, _) = C.rebuild_collect_shared(
        out, inputs=[x], updates=[(s, s * 2 + s5)], no_default_updates=[s3])
    assert [v.name for v, _ in update_expr] == ["s", "s2", "s5"]
    with pytest.raises(TypeError, match="update target must be a shared variable"):
        C.rebuild_collect_shared(out, inputs=[x], updates=[(x, x * 2)])
    with pytest.raises(ValueError, match="already has an update"):
        C.rebuild_collect_shared(out, inputs=[x], updates=[(s, s * 2), (s, s * 3)])
    with pytest.raises(TypeError, match="unbroadcast"):
        C.rebuild_collect_shared(out, inputs=[x], updates=[(s, T.fvector())])


def test_pfunc_and_orig_function(shared_setup):
    x, s, s2 = shared_setup
    out = x * s + s2
    f = C.pfunc([x], out, updates=[(s, s * 2)])
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [1.0, 2.0])  # Theano: [1. 2.]
    np.testing.assert_array_equal(s.get_value(), [2.0, 2.0])
    np.testing.assert_array_equal(s2.get_value(), [1.0, 1.0])
    g = C.pfunc([C.In(x, value=np.array([3.0, 3.0]))], out, no_default_updates=True)
    np.testing.assert_array_equal(g(), [7.0, 7.0])  # Theano: [7. 7.] with s=2, s2=1
    h = C.orig_function([C.In(x)], [C.Out(x * 2)])
    np.testing.assert_array_equal(h(np.array([1.0, 2.0]))[0], [2.0, 4.0])
    np.testing.assert_array_equal(C.orig_function([x], x * 2)(np.array([1.0, 2.0])), [2, 4])
    with pytest.raises(ValueError, match="shared variable s"):
        C.orig_function([x], x * s)


def test_function_dump_roundtrip(tmp_path, shared_setup):
    x, s, _ = shared_setup
    x.tag.test_value = np.ones(2)
    path = str(tmp_path / "dump.pkl")
    C.function_dump(path, [x], x * s, updates=[(s, s + x)], extra_tag_to_remove=["mine"])
    with open(path, "rb") as f:
        kwargs = pickle.load(f)
    assert sorted(kwargs) == ["accept_inplace", "allow_input_downcast", "givens", "inputs",
                              "mode", "name", "no_default_updates", "on_unused_input",
                              "outputs", "profile", "rebuild_strict", "updates"]  # Theano's
    assert not hasattr(kwargs["inputs"][0].tag, "test_value")
    assert hasattr(x.tag, "test_value")  # the dumped graph itself is untouched
    f = theano.function(**kwargs)
    np.testing.assert_array_equal(f(np.arange(2.0)), [0.0, 1.0])  # Theano: [0. 1.] [0. 2.]
    np.testing.assert_array_equal(f(np.arange(2.0)), [0.0, 2.0])
    with pytest.raises(TypeError, match="file name"):
        C.function_dump(io.BytesIO(), [x], x)


# --- graph tools -----------------------------------------------------------------------------

def _show(fg):
    return [str(o.owner.op) if o.owner else str(o) for o in fg.outputs]


def test_alias_tools():
    x = T.dmatrix("x")
    fg = FunctionGraph([x], [x.T, x * 2, x])
    xin = fg.inputs[0]
    assert C.alias_root(fg.outputs[0]) is xin and C.alias_root(xin) is xin
    assert C.alias_root(fg.outputs[1]) is fg.outputs[1]
    assert C.view_tree_set(xin, set(), fg) == {xin, fg.outputs[0]}  # Theano: {x, x.T}
    assert C.infer_reuse_pattern(fg, [fg.outputs[0]]) == {fg.outputs[0]}
    with pytest.raises(TypeError, match="pass the graph"):
        C.view_tree_set(xin, set())


def test_std_fgraph_and_insert_deepcopy():
    x2, y = T.dvector("x2"), T.dvector("y")
    specs = [C.In(x2), C.In(y, update=y + 1)]
    fg2, upd = C.std_fgraph(specs, [C.Out(x2.T), C.Out(x2 * 2), C.Out(x2)])
    assert fg2.inputs[0] is not x2 and fg2.update_mapping == {3: 1}
    assert len(upd) == 1 and isinstance(upd[0], C.SymbolicOutput)
    assert C.fgraph_updated_vars(fg2, specs) == {fg2.inputs[1]: fg2.outputs[3]}
    C.insert_deepcopy(fg2, specs, [C.Out(x2.T), C.Out(x2 * 2), C.Out(x2), C.Out(y + 1)])
    # Theano 1.0.5: ['DeepCopyOp', 'Elemwise{mul,no_inplace}', 'DeepCopyOp', 'Elemwise{add,...}']
    ops = _show(fg2)
    assert ops[0] == "DeepCopyOp" and ops[2] == "DeepCopyOp" and "DeepCopyOp" not in ops[1::2]
    borrowed = [C.In(x2, borrow=True)]
    fg3, _ = C.std_fgraph(borrowed, [C.Out(x2, borrow=True), C.Out(x2.T)])
    C.insert_deepcopy(fg3, borrowed, [C.Out(x2, borrow=True), C.Out(x2.T)])
    assert _show(fg3) == ["DeepCopyOp", "DeepCopyOp"]  # Theano: the same
    fg4, _ = C.std_fgraph(borrowed, [C.Out(x2.T, borrow=True), C.Out(x2, borrow=True)])
    C.insert_deepcopy(fg4, borrowed, [C.Out(x2.T, borrow=True), C.Out(x2, borrow=True)])
    assert _show(fg4) == ["ViewOp", "ViewOp"]  # Theano: the same
    c = T.constant(np.ones(2))
    fg5, _ = C.std_fgraph([C.In(x2)], [C.Out(c), C.Out(x2)])
    C.insert_deepcopy(fg5, [C.In(x2)], [C.Out(c), C.Out(x2)])
    assert _show(fg5) == ["DeepCopyOp", "DeepCopyOp"]
    with pytest.raises(ValueError, match="2 entries for the 1 inputs"):
        C.fgraph_updated_vars(fg5, specs)


def test_std_fgraph_refuses_inplace_and_supervisor_protects():
    x = T.dvector("x")
    from jitgraph.rewrite import DestroyHandler

    class AddOneInplace(theano.Op):
        __props__ = ()
        destroy_map = {0: [0]}

        def make_node(self, v):
            return theano.Apply(self, [v], [v.type()])

        def perform(self, node, inputs, out):
            inputs[0] += 1
            out[0][0] = inputs[0]

    with pytest.raises(TypeError, match="in-place operation AddOneInplace.*accept_inplace"):
        C.std_fgraph([C.In(x)], [C.Out(AddOneInplace()(x * 2))])
    accepted, _ = C.std_fgraph([C.In(x)], [C.Out(AddOneInplace()(x * 2))], accept_inplace=True)
    assert accepted.destroy_handler is not None
    fg = FunctionGraph([x], [AddOneInplace()(x)], clone=False)
    fg.attach_feature(DestroyHandler(mutable=[x]))  # the in-place bookkeeping allows it...
    fg.validate()
    fg.attach_feature(C.Supervisor([x]))  # ...the supervisor does not
    with pytest.raises(InconsistencyError, match="protected variable x"):
        fg.validate()
    ok = FunctionGraph([x], [AddOneInplace()(x * 2)], clone=False)
    ok.attach_feature(DestroyHandler())
    ok.attach_feature(C.Supervisor(ok.inputs))
    ok.validate()


def test_input_spec_helpers():
    x = T.dvector("x")
    assert isinstance(C.convert_function_input(x), C.In)
    assert C.convert_function_input((x, 3.0)).value == 3.0
    assert C.convert_function_input(("nm", x, 3.0)).name == "nm"
    assert C.convert_function_input(((x, x + 1), 2.0)).update is not None
    spec = C.In(x)
    assert C.convert_function_input(spec) is spec
    with pytest.raises(TypeError, match="constant"):
        C.convert_function_input(T.constant(1.0))
    assert C.get_info_on_inputs([], 0) == "The function takes no input."
    assert "2 inputs, none of them named" in C.get_info_on_inputs([], 2)
    assert "'a'" in C.get_info_on_inputs(["a"], 1)


def test_checkers_and_error_classes():
    C.check_equal(np.ones(2), np.ones(2))
    with pytest.raises(Exception, match="differ"):
        C.check_equal(np.ones(2), np.zeros(2))
    with pytest.raises(Exception, match="float64"):
        C.check_equal(np.ones(2), np.ones(2, dtype="float32"))
    C.check_equal(3, 3)
    from jitgraph.compile.checkers import CHECKERS, check_values

    seen = []
    C.register_checker(lambda a, b: seen.append((a, b)))
    try:
        check_values(1, 1)
        assert seen == [(1, 1)]
        with pytest.raises(Exception, match="differ"):
            check_values(1, 2)
    finally:
        CHECKERS.pop()
    assert issubclass(C.AliasedMemoryError, Exception)
    x = T.dvector()
    with pytest.raises(C.UnusedInputError):
        theano.function([x, T.dvector()], x * 2)


def test_graph_comparison():
    x, y, z = T.dscalars("x", "y", "z")
    # Theano 1.0.5: True False False / True True False / True False True
    assert C.is_same_graph(x + y, x + y) and not C.is_same_graph(x + y, y + x)
    assert not C.is_same_graph(T.dscalar() + 1, T.dscalar() + 1)
    assert C.is_same_graph(x + 1, y + 1, givens={x: y})
    assert C.is_same_graph(x + 1, y + 1, givens={y: x})
    assert C.is_same_graph(x, x) and not C.is_same_graph(x, y)
    assert C.is_same_graph(x, y, givens={x: y})
    assert C.io_connection_pattern([x, y, z], [x + y, T.shape(x), z * 2, x]) == \
        [[True, False, False, True], [True, False, False, False], [False, False, True, False]]
    m = T.dmatrix("m")
    assert C.io_connection_pattern([m, x], [m.shape[0] * x]) == [[False], [True]]


def test_shared_constructor_and_variable():
    assert C.shared is theano.shared and isinstance(theano.shared(1.0), C.SharedVariable)
    assert isinstance(T.dvector(), C.Variable) and C.config is theano.config

    class Box:
        pass

    def box_constructor(value, name=None, strict=False, allow_downcast=None, borrow=False,
                        **kwargs):
        if not isinstance(value, Box):
            return None
        from jitgraph.graph.type import generic

        return C.SharedVariable(generic, value, "boxed")

    C.shared_constructor(box_constructor)
    try:
        boxed = C.shared(Box())
        assert isinstance(boxed.get_value(), Box) and boxed.name == "boxed"
    finally:
        C.shared_constructor(box_constructor, remove=True)  # Theano's signature
    # without it, Theano's fallback: a Generic shared variable holding the object
    plain = C.shared(Box())
    assert plain.name is None and isinstance(plain.get_value(), Box)


def test_gradient_types_are_reexported():
    assert C.NullType().why_null and isinstance(C.DisconnectedType()(), C.Variable)
    assert sys.modules["jitgraph.gradient"].NullType is C.NullType
