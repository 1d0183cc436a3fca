"""Which input values a compiled function converts to its input's dtype without
``allow_input_downcast``, as Theano 1.0.5 decided (recorded with the oracle): Python and NumPy
scalars and lists convert when no value changes; an ndarray of another dtype is refused unless
the cast is safe; precision-losing values are refused."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T

# (input type, value, accepted by Theano 1.0.5 with floatX=float64)
CASES = [
    ("fscalar", 1.0, True), ("fscalar", 0.1, False), ("fscalar", 0.5, True),
    ("fscalar", np.float64(1.0), True), ("fscalar", np.float64(0.1), False),
    ("fvector", np.array([1.0, 2.5]), False), ("fvector", np.array([0.1]), False),
    ("fvector", [1.0, 2.5], True), ("fvector", [0.1], False),
    ("iscalar", 3, True), ("iscalar", np.int64(3), True), ("iscalar", 2**40, False),
    ("iscalar", np.array(5, dtype="int64"), False), ("iscalar", 3.0, True),
    ("bvector", np.array([1, 300]), False), ("bvector", np.array([1, 3]), False),
    ("fscalar", np.int64(3), True), ("fscalar", 2**30 + 1, False),
    ("fvector", np.array([3], dtype="int64"), False),
]


@pytest.mark.parametrize("kind, value, accepted", CASES,
                         ids=[f"{k}-{v!r}" for k, v, _ in CASES])
def test_input_conversion_as_theano(kind, value, accepted):
    x = getattr(T, kind)("x")
    f = jitgraph.function([x], x)
    if accepted:
        got = f(value)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, np.asarray(value))
    else:
        with pytest.raises(TypeError, match="allow_input_downcast|dimensions"):
            f(value)


def test_allow_input_downcast_wraps_out_of_range_python_ints():
    # Theano 1.0.5 (test_pfunc test_allow_input_downcast_int): out-of-range Python ints wrap
    # as a C cast does; NumPy 2 refuses them in asarray. Recorded: [1] [59] [42] [131] [4525]
    a, b, c = T.wvector("a"), T.bvector("b"), T.bscalar("c")
    f = jitgraph.function([a, b, c], a + b + c, allow_input_downcast=True)
    got = [f([2 ** 20], [1], 0), f([3], [312], 0), f([3], [1], 806), f([3], [1], -129),
           f([70000], [-200], 2 ** 40 + 5)]
    assert [r.tolist() for r in got] == [[1], [59], [42], [131], [4525]]
    assert all(r.dtype == np.int16 for r in got)
