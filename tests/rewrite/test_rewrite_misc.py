"""Odds and ends: import cost, the tensor-rewrite hook, reports, shape errors, flag-driven algo."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from rewrite_dummy_ops import add, exp, fgraph_of, neg_inplace, vecs

from jitgraph.graph.fg import InconsistencyError
from jitgraph.rewrite import (
    DestroyHandler,
    RewriteWarning,
    in_to_out,
    node_rewriter,
    shape_error,
)


def test_import_is_cheap():
    code = ("import sys, jitgraph.rewrite; "
            "bad = [m for m in ('numba', 'scipy', 'cupy') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_load_tensor_rewrites_imports_the_listed_modules(monkeypatch):
    import jitgraph
    import jitgraph.rewrite as rw
    from jitgraph import services

    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    services.provide("rewrite_modules", lambda: ("colorsys",))
    try:
        rw.load_tensor_rewrites()
    finally:
        services.provide("rewrite_modules", lambda: jitgraph.REWRITE_MODULES)
    assert "colorsys" in sys.modules


def test_summaries_print(fresh_optdb):
    @node_rewriter(None)
    def noop(fgraph, node):
        return None

    x, = vecs("x")
    stats = in_to_out(noop).rewrite(fgraph_of([x], [exp(x)]))
    out = io.StringIO()
    stats.summary(out)
    assert "Rewriter profile" in out.getvalue() and "noop" in out.getvalue()
    out = io.StringIO()
    fresh_optdb.print_summary(out)
    text = out.getvalue()
    assert "49.5 add_destroy_handler" in text and "constant_folding" in text


def test_shape_error_follows_on_shape_error(flags):
    x, = vecs("x")
    node = exp(x).owner
    try:
        raise ValueError("bad shape")
    except ValueError as exc:
        with pytest.warns(RewriteWarning, match="infer_shape of Exp failed.*bad shape"):
            shape_error(node, exc)
    flags["on_shape_error"] = "raise"
    with pytest.raises(ValueError, match="bad shape"):
        try:
            raise ValueError("bad shape")
        except ValueError as exc:
            shape_error(node, exc)


def test_cycle_detection_flag_selects_the_algorithm(flags):
    x, = vecs("x")
    y = exp(x)
    outputs = [exp(neg_inplace(y)), add(y, 1.0)]
    fg = fgraph_of([x], outputs, features=[DestroyHandler()])
    fg.validate()  # regular: the other reader is ordered first
    flags["cycle_detection"] = "fast"
    with pytest.raises(InconsistencyError, match="cycle_detection='fast'"):
        fgraph_of([x], outputs, features=[DestroyHandler()]).validate()
