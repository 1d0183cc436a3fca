"""``theano.typed_list`` (``jitgraph.typed_list``): typed lists of tensors and their ops, with
outputs recorded from Theano 1.0.5 (theano-oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T

F32 = "float32"


def _typed_list_case():
    from jitgraph.typed_list import TypedListType

    return (TypedListType(T.fvector)(), T.fvector("x"), T.lscalar("i"),
            [np.array([1, 2], F32), np.array([3], F32)])


def _values(result):
    return [v.tolist() for v in result] if isinstance(result, list) else result.tolist()


@pytest.mark.parametrize("build, args, expected", [
    # Theano 1.0.5's outputs for the list [[1, 2], [3]] of float32 vectors
    (lambda tl, l, x, i: tl.append(l, x), "x9", [[1, 2], [3], [9]]),
    (lambda tl, l, x, i: tl.extend(l, l), "", [[1, 2], [3], [1, 2], [3]]),
    (lambda tl, l, x, i: tl.insert(l, i, x), "i1x9", [[1, 2], [9], [3]]),
    (lambda tl, l, x, i: tl.remove(l, x), "x3", [[1, 2]]),
    (lambda tl, l, x, i: tl.remove(l, x), "x7", [[1, 2], [3]]),  # absent: unchanged
    (lambda tl, l, x, i: tl.reverse(l), "", [[3], [1, 2]]),
    (lambda tl, l, x, i: tl.index_(l, x), "x3", 1.0),
    (lambda tl, l, x, i: tl.count(l, x), "x3", 1.0),
    (lambda tl, l, x, i: tl.length(l), "", 2),
    (lambda tl, l, x, i: tl.getitem(l, i), "i1", [3]),
    (lambda tl, l, x, i: l[i], "i-1", [3]),
    (lambda tl, l, x, i: l[1:], "", [[3]]),
    (lambda tl, l, x, i: l.append(x), "x9", [[1, 2], [3], [9]]),
    (lambda tl, l, x, i: tl.reverse(tl.append(tl.append(l, x), x)), "x9",
     [[9], [9], [3], [1, 2]]),
])
def test_typed_list_ops_match_theano(build, args, expected):
    import jitgraph.typed_list as tl

    lst, x, i, values = _typed_list_case()
    out = build(tl, lst, x, i)
    inputs, call = [lst], [values]
    if "i" in args:
        inputs.append(i)
        call.append(int(args.split("i")[1].split("x")[0]))
    if "x" in args:
        inputs.append(x)
        call.append(np.array([float(args.split("x")[1])], F32))
    result = theano.function(inputs, out)(*call)
    assert _values(result) == expected
    assert [v.tolist() for v in values] == [[1, 2], [3]]  # the input list is not changed


def test_typed_list_types_and_errors():
    import jitgraph.typed_list as tl

    lst, x, i, values = _typed_list_case()
    assert str(lst.type) == "TypedList <TensorType(float32, vector)>"
    assert str(tl.TypedListType(T.fvector, 1)) == \
        "TypedList <TypedList <TensorType(float32, vector)>>"
    assert tl.TypedListType(T.fvector, 1).get_depth() == 1 and lst.type.get_depth() == 0
    assert lst.ttype == T.fvector and isinstance(lst, tl.TypedListVariable)
    assert [str(v.type) for v in (tl.length(lst), tl.index_(lst, x), tl.count(lst, x))] == \
        ["TensorType(int64, scalar)", f"TensorType({theano.config.floatX}, scalar)",
         f"TensorType({theano.config.floatX}, scalar)"]
    assert lst[1:].type == lst.type and lst[i].type == T.fvector
    assert [str(op) for op in (tl.append, tl.getitem, tl.make_list, tl.index_)] == \
        ["Append", "GetItem", "MakeList", "Index"]
    made = tl.make_list([T.fvector(), T.fvector()])
    assert made.type == lst.type
    with pytest.raises(TypeError, match="element type"):
        tl.append(lst, T.dvector())
    with pytest.raises(TypeError, match="same type"):
        tl.make_list([T.fvector(), T.dvector()])
    with pytest.raises(ValueError, match="not in the list"):
        theano.function([lst, x], tl.index_(lst, x))(values, np.array([7], F32))
    with pytest.raises(IndexError):
        theano.function([lst, i], lst[i])(values, 5)
    with pytest.raises(TypeError):  # float64 values are not float32 vectors
        theano.function([lst], lst)([np.array([1.0, 2.0])])


def test_typed_list_inplace_rewrite():
    import jitgraph.typed_list as tl

    lst, x, _, values = _typed_list_case()
    f = theano.function([lst, x], tl.reverse(tl.append(tl.append(lst, x), x)))
    flags = [n.op.inplace for n in f.maker.fgraph.toposort()]
    assert flags == [False, True, True]  # the input list itself is never overwritten
