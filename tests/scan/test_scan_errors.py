"""Bad scan programs get errors that name the argument and what was expected."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.scan import MissingNonSequenceError, scan, until
from jitgraph.scan.runner import ScanStepError


def test_strict_names_the_missing_shared_variable():
    h0 = T.dvector("h0")
    Ws = jitgraph.shared(np.eye(2) * 0.5, name="Ws")
    with pytest.raises(MissingNonSequenceError, match="shared variable Ws"):
        scan(lambda h: T.dot(Ws, h), outputs_info=h0, n_steps=3, strict=True)
    out, _ = scan(lambda h, W: T.dot(W, h), outputs_info=h0, non_sequences=[Ws], n_steps=3,
                  strict=True)
    np.testing.assert_allclose(jitgraph.function([h0], out)(np.ones(2))[-1], [0.125, 0.125])


def test_outputs_info_of_the_wrong_dtype_names_both_types():
    with pytest.raises(TypeError, match="output 0 .* dtype float64.* dtype int32"):
        scan(lambda h: h * 2.0, outputs_info=T.constant(np.int32(1)), n_steps=3)


def test_outputs_info_of_the_wrong_ndim():
    with pytest.raises(TypeError, match="2 dimension\\(s\\).*states of 1"):
        scan(lambda h: T.outer(h, h), outputs_info=T.dvector(), n_steps=3)
    with pytest.raises(TypeError, match="leading dimension"):
        scan(lambda a, b: a + b, outputs_info=dict(initial=T.dscalar(), taps=[-2, -1]),
             n_steps=3)


def test_repeated_or_non_negative_output_taps():
    # Theano 1.0.5 raises ValueError for both when scan is called (oracle); a repeated tap
    # used to reach the step function with one argument too many (a TypeError from it).
    x, y = T.fvector("x"), T.fvector("y")
    with pytest.raises(ValueError, match="taps of output 0 must be negative"):
        scan(lambda a, b: [a], x, dict(initial=y, taps=[0]))
    with pytest.raises(ValueError, match="taps of output 0 repeat a value"):
        scan(lambda a, b: [a], x, dict(initial=y, taps=[-1, -1]))


def test_wrong_number_of_outputs_info_entries():
    with pytest.raises(ValueError, match="outputs_info has 2 entries.* 1 output"):
        scan(lambda h: h * 2, outputs_info=[T.dvector(), None], n_steps=3)


def test_sequence_shorter_than_n_steps():
    x = T.dvector("x")
    out, _ = scan(lambda a, h: h + a, sequences=x, outputs_info=T.constant(np.float64(0)),
                  n_steps=3)
    f = jitgraph.function([x], out)
    np.testing.assert_allclose(f(np.arange(5.)), [0, 1, 3])
    with pytest.raises(ValueError, match="sequence 0 .* has 2 entries, fewer than the 3 steps"):
        f(np.arange(2.))


def test_negative_symbolic_n_steps():
    k = T.iscalar("k")
    out, _ = scan(lambda h: h + 1, outputs_info=T.constant(np.float64(0)), n_steps=k)
    with pytest.raises(IndexError, match="negative number of steps \\(-3\\)"):
        jitgraph.function([k], out)(-3)


def test_until_condition_must_be_a_scalar():
    with pytest.raises(TypeError, match="scalar"):
        until(T.dvector() > 0)
    with pytest.raises(ValueError, match="last"):
        scan(lambda h: (until(h > 1), h), outputs_info=T.dscalar(), n_steps=2)


def test_state_changing_shape_between_steps():
    x = T.dvector("x")
    n = T.iscalar("n")
    out, _ = scan(lambda h, n: T.ones((n,)) + h[:1], outputs_info=x, non_sequences=n,
                  n_steps=2)
    f = jitgraph.function([x, n], out)
    with pytest.raises(ScanStepError, match="shape \\(1,\\) at step 0.*shape \\(3,\\)"):
        f(np.zeros(3), 1)


def test_scalar_sequence_and_missing_n_steps():
    with pytest.raises(TypeError, match="sequence 0 .* is a scalar"):
        scan(lambda a: a, sequences=T.dscalar("s"))
    with pytest.raises(ValueError, match="needs n_steps"):
        scan(lambda h: h, outputs_info=T.dscalar())


def test_error_inside_a_step_says_which_step():
    x = T.dmatrix("x")
    idx = T.ivector("idx")
    out, _ = scan(lambda i, x: x[i], sequences=idx, non_sequences=x)
    f = jitgraph.function([idx, x], out)
    with pytest.raises(IndexError, match="index 5 is out of bounds(.|\n)*in step 1 of scan"):
        f(np.array([0, 5], dtype="int32"), np.ones((2, 2)))
