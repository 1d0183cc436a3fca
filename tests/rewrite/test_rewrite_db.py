"""Databases, queries, the standard phases, levels and the config flags applied to them."""

from __future__ import annotations

import math

import pytest
from rewrite_dummy_ops import Neg, exp, fgraph_of, neg, op_names, vecs

from jitgraph.rewrite import (
    LEVELS,
    EquilibriumDB,
    EquilibriumGraphRewriter,
    LocalGroupDB,
    MergeGraphRewriter,
    NodeRewriterGroup,
    RewriteDatabase,
    RewriteDatabaseQuery,
    SequenceDB,
    SequentialGraphRewriter,
    WalkingGraphRewriter,
    get_query,
    node_rewriter,
    query_for_level,
    register_canonicalize,
    register_fusion,
    register_inplace,
    register_specialize,
    register_stabilize,
    register_useless,
    rewrite_graph,
)
from jitgraph.rewrite.db import as_query
from jitgraph.rewrite.engine import flatten_rewriters

Q = RewriteDatabaseQuery


def make_rw(name):
    return node_rewriter(None, name=name)(lambda fgraph, node: None)


def names(result):
    return [r.name for r in (result if isinstance(result, list) else result.rewriters)]


@pytest.fixture
def flat_db():
    db = RewriteDatabase("algebra")
    db.register("a", make_rw("a"), "fast_run", "stable")
    db.register("b", make_rw("b"), "fast_run", "fast_compile")
    db.register("c", make_rw("c"), "unsafe")
    return db


def test_include_require_exclude(flat_db):
    assert names(flat_db.query(Q(include=["fast_run"]))) == ["a", "b"]
    assert names(flat_db.query(Q(include=["fast_run", "unsafe"]))) == ["a", "b", "c"]
    assert names(flat_db.query(Q(include=["fast_run"], require=["stable"]))) == ["a"]
    assert names(flat_db.query(Q(include=["fast_run"], exclude=["fast_compile"]))) == ["a"]
    assert names(flat_db.query(Q(include=["c"]))) == ["c"]          # by name
    assert names(flat_db.query(Q(include=["algebra"]))) == ["a", "b", "c"]  # db name as tag
    assert names(flat_db.query(Q(include=[]))) == []


def test_string_form(flat_db):
    assert names(flat_db.query("+fast_run", "-fast_compile")) == ["a"]
    assert names(flat_db.query("fast_run", "&stable")) == ["a"]
    assert as_query(["+x", "-y", "&z"]) == Q(include=["x"], exclude=["y"], require=["z"])
    with pytest.raises(ValueError, match="bad query item"):
        flat_db.query("+")
    with pytest.raises(TypeError, match="RewriteDatabaseQuery or strings"):
        flat_db.query(3)


def test_registration_errors(flat_db):
    with pytest.raises(ValueError, match="already registered"):
        flat_db.register("a", make_rw("a"))
    with pytest.raises(ValueError, match="already used as a tag"):
        flat_db.register("stable", make_rw("s"))
    with pytest.raises(ValueError, match="already the name"):
        flat_db.register("d", make_rw("d"), "a")
    with pytest.raises(TypeError, match="node_rewriter"):
        flat_db.register("e", lambda fgraph, node: None)
    with pytest.raises(TypeError, match="position"):
        SequenceDB("s").register("x", make_rw("x"))
    flat_db.unregister("c")
    assert "c" not in flat_db and names(flat_db.query("+unsafe")) == []


def test_query_derivations_last_call_wins():
    q = Q(include=["fast_run"], exclude=["inplace"])
    assert q.including("inplace") == Q(include=["fast_run", "inplace"])
    assert q.excluding("fast_run").include == ()
    assert q.requiring("stable").require == ("stable",)
    assert q.with_cutoff(1.5).position_cutoff == 1.5
    assert hash(q) == hash(Q(include=("fast_run",), exclude=("inplace",)))
    assert "position_cutoff=1.5" in str(q.with_cutoff(1.5))


def test_recursion_into_sub_databases_with_subquery_and_cutoff():
    top = SequenceDB("top")
    eq = EquilibriumDB("canon")
    eq.register("r_fast", make_rw("r_fast"), "fast_run")
    eq.register("r_compile", make_rw("r_compile"), "fast_run", "fast_compile")
    eq.register("r_stable", make_rw("r_stable"), "fast_run", "stable")
    top.register("canon", eq, "fast_run", "fast_compile", position=1)
    top.register("late", MergeGraphRewriter("late"), "fast_run", position=5)
    top.register("empty", LocalGroupDB("empty"), "fast_run", position=0.5)

    result = top.query("+fast_run")
    assert isinstance(result, SequentialGraphRewriter)
    assert names(result) == ["canon", "late"]  # the empty group is left out
    canon = result.rewriters[0]
    assert isinstance(canon, EquilibriumGraphRewriter)
    assert names(canon.node_rewriters) == ["r_fast", "r_compile", "r_stable"]

    compile_only = top.query("+fast_compile").rewriters[0]
    assert names(compile_only.node_rewriters) == ["r_compile"]
    # require filters the rewrites inside the databases, not the databases themselves
    stable = top.query("+fast_run", "&stable")
    assert names(stable.rewriters[0].node_rewriters) == ["r_stable"]
    assert names(stable) == ["canon"]
    # position cutoff drops later phases of the queried database
    assert names(top.query(Q(include=["fast_run"], position_cutoff=2))) == ["canon"]
    # subquery: another query inside one sub-database
    q = Q(include=["fast_run"], subquery={"canon": Q(include=["stable"])})
    assert names(top.query(q).rewriters[0].node_rewriters) == ["r_stable"]


def test_local_group_db_gives_a_group():
    g = LocalGroupDB("g")
    g.register("one", make_rw("one"), "t")
    g.register("two", make_rw("two"), "t")
    group = g.query("+t")
    assert isinstance(group, NodeRewriterGroup) and names(group.rewriters) == ["one", "two"]


# -- the standard phases and levels ----------------------------------------------------------

def phase_names(q):
    from jitgraph.rewrite.phases import optdb

    return names(optdb.query(q))


def test_levels_select_the_expected_phases(fresh_optdb):
    assert phase_names(get_query(None)) == []
    assert phase_names(get_query("None")) == []
    assert phase_names(get_query("merge")) == ["merge1", "merge1.2", "merge2", "merge3"]
    fast_compile = ["merge1", "canonicalize", "merge1.2", "constant_folding_final", "merge3"]
    assert phase_names(get_query("fast_compile")) == fast_compile
    assert phase_names(get_query("o1")) == fast_compile
    fast_run = ["merge1", "canonicalize", "merge1.2", "merge2", "add_destroy_handler",
                "constant_folding_final", "merge3"]
    assert phase_names(get_query("fast_run")) == fast_run
    assert phase_names(get_query("O4")) == fast_run
    assert "add_destroy_handler" not in phase_names(get_query("o3"))
    assert phase_names(get_query("stabilize")) == ["merge1", "canonicalize", "merge1.2"]
    assert get_query("unsafe").include == ("fast_run", "unsafe")
    assert set(LEVELS) >= {"none", "merge", "fast_compile", "o1", "o2", "o3", "o4", "fast_run",
                           "unsafe", "stabilize"}
    with pytest.raises(ValueError, match="unknown optimizer level 'fastest'.*o2.*stabilize"):
        get_query("fastest")


def test_registration_helpers_and_sub_db_filtering(fresh_optdb):
    @register_canonicalize
    @node_rewriter([Neg])
    def local_c(fgraph, node):
        return None

    register_canonicalize(make_rw("local_c_unsafe"), "unsafe")
    register_stabilize(make_rw("local_s_all"))
    register_stabilize(make_rw("local_s_grad"), "fast_compile")
    register_specialize("fast_compile", name="local_sp")(make_rw("rw_sp"))
    register_useless(make_rw("local_u"))
    register_fusion(make_rw("local_fuse"))
    register_inplace(make_rw("local_inplace"), position=60)

    db = fresh_optdb
    assert db["canonicalize"].tags_of("local_c") >= {"fast_run", "fast_compile", "canonicalize"}
    assert db["canonicalize"].tags_of("local_c_unsafe") == {"unsafe"}
    assert "local_sp" in db["specialize"]
    assert db.position_of("local_inplace") == 60
    assert db.tags_of("local_inplace") >= {"fast_run", "inplace"}

    def sub(level, phase):
        result = db.query(get_query(level))
        for rw in result.rewriters:
            if rw.name == phase:
                if hasattr(rw, "node_rewriters"):
                    members = rw.node_rewriters
                elif isinstance(rw, WalkingGraphRewriter):
                    members = flatten_rewriters(rw.rewriters)
                else:
                    members = rw.rewriters
                return sorted(r.name for r in members)
        return None

    # FAST_COMPILE enters stabilize and specialize but runs only what is tagged fast_compile
    assert sub("fast_compile", "stabilize") == ["local_s_grad"]
    assert sub("fast_run", "stabilize") == ["local_s_all", "local_s_grad"]
    assert sub("fast_compile", "specialize") == ["rw_sp"]  # registered as local_sp
    assert sub("fast_run", "canonicalize") == ["constant_folding", "local_c"]
    assert sub("unsafe", "canonicalize") == ["constant_folding", "local_c", "local_c_unsafe"]
    assert sub("fast_run", "useless") == ["local_u"]
    assert sub("o2", "elemwise_fusion") == ["local_fuse"]
    assert sub("fast_compile", "elemwise_fusion") is None
    assert "local_inplace" in phase_names(get_query("fast_run"))
    assert "local_inplace" not in phase_names(get_query("o3"))
    with pytest.raises(TypeError, match="node_rewriter"):
        register_canonicalize(lambda fgraph, node: None)


def test_config_flags_apply_to_named_levels(flags, fresh_optdb):
    register_fusion(make_rw("local_fuse"))
    assert "elemwise_fusion" in phase_names(query_for_level("fast_run"))
    flags["optimizer_excluding"] = "fusion:inplace"
    assert "elemwise_fusion" not in phase_names(query_for_level("FAST_RUN"))
    assert "add_destroy_handler" not in phase_names(query_for_level("fast_run"))
    flags["optimizer_excluding"] = ""
    flags["optimizer_including"] = "fusion"
    assert "elemwise_fusion" in phase_names(query_for_level("fast_compile"))
    flags["optimizer_including"] = ""
    flags["optimizer_requiring"] = "merge"
    assert phase_names(query_for_level("fast_run")) == ["merge1", "merge1.2", "merge2", "merge3"]
    flags["optimizer_requiring"] = ""
    flags["tensor.local_elemwise_fusion"] = False
    assert "elemwise_fusion" not in phase_names(query_for_level("o2"))
    flags["tensor.local_elemwise_fusion"] = True
    flags["optdb.position_cutoff"] = 1.0
    assert phase_names(query_for_level("fast_run")) == ["merge1", "canonicalize"]
    # the None level never rewrites, whatever the flags say
    flags["optimizer_including"] = "merge"
    assert phase_names(query_for_level(None)) == []
    assert query_for_level("fast_run", apply_config=False) == get_query("fast_run")
    # a mode's own tag changes apply even to None; the config flags do not
    assert query_for_level(None, include=["fusion"]).include == ("fusion",)
    assert query_for_level("o3", False, include=["inplace"], exclude=["merge"],
                           require=["x"]) == Q(include=["fast_run", "inplace"],
                                               exclude=["merge"], require=["x"])
    assert query_for_level(Q(include=["x"])).include == ("x", "merge")
    assert math.isinf(get_query("fast_run").position_cutoff)


def test_rewrite_graph_on_outputs_and_levels(fresh_optdb):
    @register_canonicalize
    @node_rewriter([Neg])
    def local_neg_neg_c(fgraph, node):
        inner = node.inputs[0].owner
        if inner is not None and isinstance(inner.op, Neg):
            return [inner.inputs[0]]

    x, = vecs("x")
    y = exp(neg(neg(x)))
    new = rewrite_graph(y)
    assert new.owner.inputs[0] is x and y.owner.inputs[0].owner is not None
    assert rewrite_graph(y, None).owner.inputs[0].owner.op == neg  # None: nothing
    assert rewrite_graph(y, "merge").owner.inputs[0].owner.op == neg
    assert rewrite_graph([y], include=["canonicalize"])[0].owner.inputs[0] is x
    assert rewrite_graph(y, exclude=["local_neg_neg_c"]).owner.inputs[0].owner.op == neg
    fg = fgraph_of([x], [y])
    assert rewrite_graph(fg, "fast_compile") is fg
    assert op_names(fg) == ["Exp"]
    assert fg.rewrite_stats.applied("local_neg_neg_c") == 1
