"""Functions that share an input's state (``In(value=f.container[s])``) keep sharing it when
they are pickled or deep-copied together, and other details of copies and input names.

Before, a function deep-copied with a memo that maps the function owning a state to its copy
(``copy.deepcopy(f, memo)`` after ``copy.deepcopy(h, memo)``) kept reading the original's state.
The numbers are Theano 1.0.5's for the same calls (``/work/shared/tools/theano-oracle``).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph import In, function
from jitgraph.compile.function import UnusedInputError


def _two_functions_one_state():
    x, s = T.dscalar("x"), T.dscalar("s")
    f1 = function([x, In(s, value=0.0, update=s + x, mutable=True)], s + x)
    f2 = function([x, In(s, value=f1.container[s], update=s + 2 * x, mutable=True)], s + 2 * x)
    f1(1.0)
    f2(1.0)
    return f1, f2


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_functions_sharing_a_state_keep_sharing_it(how):
    f1, f2 = _two_functions_one_state()
    both = [f1, f2]
    g1, g2 = pickle.loads(pickle.dumps(both)) if how == "pickle" else copy.deepcopy(both)
    assert [g1(1.0), g2(1.0), g1(0.0)] == [4.0, 6.0, 6.0]
    assert f1(0.0) == 3.0  # the originals' state is their own


def test_deepcopy_with_a_memo_maps_a_borrowed_state_to_the_copy():
    a, x = T.dscalar("a"), T.dscalar("x")
    h = function([In(a, value=0.0)], a)
    f = function([x, In(a, value=h.container[a], implicit=True)], x + a)
    memo: dict = {}
    a_copy = copy.deepcopy(a, memo)
    h_copy = copy.deepcopy(h, memo)
    f_copy = copy.deepcopy(f, memo)
    h[a] = 1.0
    h_copy[a_copy] = 2.0
    assert (f(0.0), f_copy(0.0)) == (1.0, 2.0)
    assert a_copy in f_copy.value and a not in f_copy.value


def test_copy_module_copy_is_function_copy():
    x = T.dscalar("x")
    f = function([x], x * 2)
    g = copy.copy(f)
    assert g is not f and g(3.0) == [6.0]  # a copy returns a list, as Function.copy does


def test_input_names():
    a, b = T.dscalar("a"), T.dscalar("b")
    with pytest.raises(TypeError, match="name of input"):
        In(a, name=[])
    f = function([In(a, name="x"), In(b, name="x")], a + b)
    assert f(1.0, 2.0) == 3.0
    with pytest.raises(TypeError, match="several inputs named 'x'"):
        f(1.0, x=2.0)
    with pytest.raises(UnusedInputError):
        function([a, b], a)


def test_no_default_updates_must_be_a_flag_or_a_list():
    from jitgraph import shared

    s = shared(0)
    s.default_update = s + 2
    for wrong in (s, "canard"):
        with pytest.raises(TypeError, match="no_default_updates"):
            function([], s, no_default_updates=wrong)
    function([], s, no_default_updates=[s])()
    assert s.get_value() == 0


def test_text_for_numbers_is_a_value_error():
    """As in Theano 1.0.5: ``set_value('adsf')`` on a float vector and a call given text raise
    ValueError (it was TypeError)."""
    from jitgraph import shared

    u = shared(np.asarray([1.0, 2.0]))
    for text in ("adsf", ["a", "b"]):
        with pytest.raises(ValueError, match="text"):
            u.set_value(text)
    x = T.dvector("x")
    with pytest.raises(ValueError, match="text"):
        function([x], x * 2)("ab")
