"""Theano's step-by-step MRG31k3p helpers (``theano.sandbox.rng_mrg``): values recorded from
Theano 1.0.5 (theano-oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.sandbox import rng_mrg as R

SEED_STATE = np.array([12345] * 6, dtype="int32")
COMPANION1 = np.array([[0, 4194304, 129], [1, 0, 0], [0, 1, 0]])


def test_jumps_match_theano():
    assert R.ff_2p134(SEED_STATE).tolist() == [336690377, 597094797, 1245771585, 85196284,
                                               523477687, 2094976052]
    assert R.ff_2p72(SEED_STATE).tolist() == [1613322692, 623311037, 1722317882, 1563970864,
                                              792350268, 619030428]
    assert R.ff_2p72(SEED_STATE).dtype == np.int32
    # the rows of a streams object's state matrix are 2**72 steps apart
    rows = R.MRG_RandomStreams(12345).get_substream_rstates(3, "float64")
    assert rows[1].tolist() == R.ff_2p72(rows[0]).tolist()
    assert rows[2].tolist() == R.ff_2p72(rows[1]).tolist()


def test_matrix_vector_products_modulo():
    out = R.matVecModM(COMPANION1, np.array([1, 2, 3]), R.M1)
    assert out.tolist() == [8388995, 1, 2] and out.dtype == np.int32
    both = R.multMatVect(SEED_STATE, COMPANION1, R.M1, COMPANION1, R.M2)
    assert both.tolist() == [240667857, 12345, 12345, 241173489, 12345, 12345]


def test_dot_modulo_op():
    a1, a2 = T.lmatrices("a1", "a2")
    s1, s2 = T.ivectors("s1", "s2")
    m1, m2 = T.iscalars("m1", "m2")
    out = R.DotModulo()(a1, s1, m1, a2, s2, m2)
    assert str(R.DotModulo()) == "DotModulo" and out.type == T.ivector
    for mode in ("FAST_RUN", "FAST_COMPILE", "DebugMode"):
        f = jitgraph.function([a1, s1, m1, a2, s2, m2], out, mode=mode)
        got = f(COMPANION1, SEED_STATE[:3], R.M1, COMPANION1, SEED_STATE[3:], R.M2)
        assert got.tolist() == [240667857, 12345, 12345, 241173489, 12345, 12345]
    with pytest.raises(TypeError, match="integer"):
        R.DotModulo()(T.dmatrix(), s1, m1, a2, s2, m2)


@pytest.mark.parametrize("norm, mask, offset, expected", [
    (1.0, -1, 0, 1751155068.0), (4.656612873077392578125e-10, -1, 0, 0.8154451232403517),
    (1.0, 0xFFFF, 0, 33148.0), (1.0, 0xFFFF, 7, 33155.0), (1.0, 0, 7, 7.0),
    (np.float32(4.6566126e-10), -1, 0, 0.8154450746360348)])
def test_mrg_next_value(norm, mask, offset, expected):
    state = np.array([12345, 2, 3, 12345, 5, 6], dtype="int32")
    new = np.zeros(6, dtype="int32")
    value = R.mrg_next_value(state, new, norm, mask, offset)
    assert type(value) is np.float64 and value == expected
    assert new.tolist() == [8388995, 12345, 2, 404717574, 12345, 5]
    assert state.tolist() == [12345, 2, 3, 12345, 5, 6]
    with pytest.raises(TypeError, match="int32"):
        R.mrg_next_value(state.astype("int64"), new, norm, mask, offset)


def test_mrg_uniform_takes_theanos_constructor():
    op = R.mrg_uniform_base(T.TensorType("float32", (False,)))
    assert str(op) == "mrg_uniform{TensorType(float32, vector),no_inplace}" and not op.inplace
    assert R.mrg_uniform(T.TensorType("float32", (False,)), True).inplace
    _, sample = op(T.constant(np.tile(SEED_STATE, (4, 1))), [6])
    values = jitgraph.function([], sample)()
    assert values.shape == (6,) and values.dtype == np.float32 and (0 < values).all()
    assert R.mrg_random_make_inplace.name == "mrg_random_make_inplace"


def test_module_constants_match_theano():
    """The jump matrices, masks and scale Theano's rng_mrg module exposes (its values)."""
    assert R.A1p72.dtype == np.int64 and R.A1p72.tolist() == [
        [1516919229, 758510237, 499121365], [1884998244, 1516919229, 335398200],
        [601897748, 1884998244, 358115744]]
    assert R.A2p72.tolist() == [[1228857673, 1496414766, 954677935],
                                [1133297478, 1407477216, 1496414766],
                                [2002613992, 1639496704, 1407477216]]
    assert R.A1p134.tolist() == [[1702500920, 1849582496, 1656874625],
                                 [828554832, 1702500920, 1512419905],
                                 [1143731069, 828554832, 102237247]]
    assert R.A2p134.tolist() == [[796789021, 1464208080, 607337906],
                                 [1241679051, 1431130166, 1464208080],
                                 [1401213391, 1178684362, 1431130166]]
    assert (R.MASK12, R.MASK13, R.MASK2, R.MULT2) == (511, 16777215, 65535, 21069)
    assert R.MASK12.dtype == np.int32 and R.NORM == 4.656612873077393e-10
    assert R.np_int32_vals == [0, 7, 9, 15, 16, 22, 24]
    np.testing.assert_array_equal(R.multMatVect(SEED_STATE, R.A1p134, R.M1, R.A2p134, R.M2),
                                  R.ff_2p134(SEED_STATE))


def test_sandbox_multinomial_ops_as_theano():
    """theano.sandbox.multinomial: values and dtypes recorded from Theano 1.0.5 ('auto' is the
    pvals' dtype for MultinomialFromUniform, int64 for ChoiceFromUniform)."""
    import warnings

    from jitgraph.sandbox import multinomial as M

    assert R.multinomial is M
    p, u, n = T.dmatrix(), T.dvector(), T.iscalar()
    four = np.array([[0.1, 0.2, 0.3, 0.4]])
    counts = jitgraph.function([p, u], M.MultinomialFromUniform("auto")(p, u))(
        np.array([[0.1, 0.2, 0.7]]), np.array([0.5]))
    assert counts.dtype == np.float64 and counts.tolist() == [[0.0, 0.0, 1.0]]
    chosen = jitgraph.function([p, u, n], M.ChoiceFromUniform("auto")(p, u, n))(
        four, np.array([0.5, 0.2]), 2)
    assert chosen.dtype == np.int64 and chosen.tolist() == [[2, 1]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        op = M.MultinomialWOReplacementFromUniform("auto")
    assert [str(w.message) for w in caught] == [
        "MultinomialWOReplacementFromUniform is deprecated, use ChoiceFromUniform instead."]
    assert jitgraph.function([p, u, n], op(p, u, n))(four, np.array([0.5, 0.2]), 2).tolist() \
        == [[2, 1]]
