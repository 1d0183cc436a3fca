"""jitgraph.misc.may_share_memory against Theano 1.0.5's answers (data/misc_oracle.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from misc_cases import memory_cases

sp = pytest.importorskip("scipy.sparse")
from jitgraph.misc.may_share_memory import may_share_memory  # noqa: E402

ORACLE = json.loads((Path(__file__).parent / "data" / "misc_oracle.json").read_text())
CASES = memory_cases(np, sp)


def outcome(*args, **kwargs):
    try:
        return may_share_memory(*args, **kwargs)
    except TypeError:
        return {"error": "TypeError"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_answers_as_theano(name):
    a, b = CASES[name]
    assert [outcome(a, b), outcome(a, b, False)] == ORACLE["may_share_memory"][name]


def test_answers_are_bools():
    a = np.arange(4)
    assert may_share_memory(a, a[1:]) is True
    assert may_share_memory(sp.csr_matrix(np.eye(2)), a) is False


def test_other_types_error_names_them():
    with pytest.raises(TypeError, match=r"b is a builtins\.list.*raise_other_type=False"):
        may_share_memory(np.zeros(2), [1.0])
    assert may_share_memory({}, np.zeros(2), raise_other_type=False) is False


@pytest.mark.parametrize("fmt", ["coo", "lil", "dia", "dok"])
def test_every_sparse_format_against_arrays(fmt):
    """Theano fails with AttributeError for coo/lil/dia against an ndarray; here each format is
    compared through the arrays it stores."""
    m = sp.eye(3, format=fmt)
    assert may_share_memory(m, np.zeros(3)) is False
    assert may_share_memory(m, m) is True
    assert may_share_memory(m, m.copy()) is False
    if fmt in ("coo", "dia"):
        assert may_share_memory(m, m.data) is True
        assert may_share_memory(m.data, m) is True


def test_lil_rows_shared_through_their_lists():
    m = sp.lil_matrix(np.eye(3))
    view = sp.lil_matrix((3, 3))
    view.rows, view.data = m.rows, m.data
    assert may_share_memory(m, view) is True
    assert may_share_memory(m, m.copy()) is False


def test_does_not_import_scipy(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "scipy.sparse")
    assert may_share_memory(np.zeros(2), np.zeros(2)) is False
    with pytest.raises(TypeError):
        may_share_memory(np.zeros(2), "x")
    assert "scipy.sparse" not in sys.modules
