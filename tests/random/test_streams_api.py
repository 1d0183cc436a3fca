"""RandomStreams (shared_randomstreams) and raw_random: seeding as Theano seeds, the shared
RandomState values, updates, output types, and permute_row_elements."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.gradient import NullTypeGradError
from jitgraph.tensor import raw_random
from jitgraph.tensor.shared_randomstreams import RandomStateSharedVariable, RandomStreams

#: Theano 1.0.5: a draw of RandomStreams(234) holds RandomState(RandomState(234).randint(2**30))
#: whose state starts with these words
THEANO_FIRST_STATE_WORDS = [133003720, 3948221417, 2745111892]


def test_each_draw_is_seeded_from_the_streams_seed():
    srng = RandomStreams(234)
    u = srng.uniform((2, 1))
    assert isinstance(u.rng, RandomStateSharedVariable)
    assert list(u.rng.get_value(borrow=True).get_state()[1][:3]) == THEANO_FIRST_STATE_WORDS
    assert u.update == (u.rng, u.rng.default_update)
    assert srng.state_updates == [u.update] and srng.updates() == [u.update]
    assert u.rng.tag.is_rng
    seeds = np.random.RandomState(234)
    seeds.randint(2**30)
    v = srng.normal((3,))
    expected = np.random.RandomState(seeds.randint(2**30))
    np.testing.assert_array_equal(v.rng.get_value().get_state()[1],
                                  expected.get_state()[1])


def test_output_types_are_theanos():
    srng = RandomStreams(1)
    m = T.matrix()
    x = T.lscalar()
    assert srng.uniform((2, 1)).broadcastable == (False, True)
    assert srng.uniform(low=T.vector()).ndim == 1
    assert srng.uniform(size=None, low=T.matrix(), high=1.0).ndim == 2
    assert srng.binomial((3,), dtype="float32").dtype == "float32"
    assert srng.random_integers((3,)).dtype == "int64"
    assert srng.poisson((3,), lam=2.0).dtype == "int64"
    assert srng.permutation((2,), n=5).ndim == 2
    assert srng.permutation(n=5).ndim == 1
    assert srng.multinomial((2,), n=3, pvals=[0.2, 0.8]).ndim == 2
    assert srng.multinomial(n=3, pvals=[0.2, 0.8]).ndim == 1
    assert srng.shuffle_row_elements(m).ndim == 2
    assert srng.uniform((x, 2)).ndim == 2
    assert srng.gen(raw_random.uniform, (2,)).ndim == 1
    assert str(srng.uniform((2,)).owner.op) == "RandomFunction{uniform}"
    # Theano's name does not change in place (what debugprint of a function shows)
    assert str(srng.uniform((2,)).owner.op.with_inplace()) == "RandomFunction{uniform}"
    with pytest.raises(ValueError, match="ndim should be equal to len"):
        srng.uniform((2, 3), ndim=1)
    with pytest.raises(TypeError, match="cannot infer shape"):
        srng.choice(a=5)
    with pytest.raises(ValueError, match="negative"):
        srng.uniform((2, -3))
    with pytest.raises(ValueError, match="no parameter has axis 1"):
        srng.uniform((2, -1))  # -1 takes the length from a parameter: there is none


def test_size_minus_one_takes_the_parameters_length():
    """Theano's convention: -1 in a size is the length of the (right-aligned) parameters along
    that axis, 1 where they are all broadcastable there; the numbers are those of the full
    size."""
    low, avg = T.dvector(), T.dmatrix()
    srng = RandomStreams(7)
    u = srng.uniform(size=(2, -1), low=low, high=1.0)
    n = srng.normal(size=(-1, 2), avg=avg)
    assert u.broadcastable == (False, False) and n.broadcastable == (False, False)
    f = jitgraph.function([low, avg], [u, n])
    got_u, got_n = f(np.zeros(3), np.zeros((4, 2)))
    want = RandomStreams(7)
    g = jitgraph.function([low, avg], [want.uniform(size=(2, 3), low=low, high=1.0),
                                       want.normal(size=(4, 2), avg=avg)])
    want_u, want_n = g(np.zeros(3), np.zeros((4, 2)))
    np.testing.assert_array_equal(got_u, want_u)
    np.testing.assert_array_equal(got_n, want_n)
    assert srng.uniform(size=(-1, 3), low=T.row(), high=1.0).broadcastable == (True, False)


def test_parameters_with_more_dimensions_than_the_size_are_refused():
    srng = RandomStreams(1)
    m = T.matrix()
    for draw in (lambda: srng.normal(size=(3,), avg=m), lambda: srng.binomial(size=(3,), p=m),
                 lambda: srng.normal(size=T.lvector(), avg=m, ndim=1),
                 lambda: srng.multinomial(size=(2,), n=1, pvals=np.ones((2, 2, 2)) / 2)):
        with pytest.raises(ValueError, match="ndim should be at least as big as required by "
                                             "args value"):
            draw()


def test_get_value_copies_and_borrow_does_not():
    srng = RandomStreams(3)
    u = srng.uniform((2,))
    assert u.rng.get_value(borrow=True) is u.rng.get_value(borrow=True)
    assert u.rng.get_value() is not u.rng.get_value(borrow=True)
    with pytest.raises(TypeError, match="RandomState"):
        u.rng.set_value(np.zeros(3))
    f = jitgraph.function([], u)
    copy = u.rng.get_value()
    first = f()
    np.testing.assert_array_equal(first, copy.uniform(0.0, 1.0, (2,)))


def test_seed_reseeds_every_draw():
    srng = RandomStreams(7)
    f = jitgraph.function([], [srng.uniform((3,)), srng.normal((2,))])
    first = f()
    f()
    srng.seed(7)
    for a, b in zip(first, f()):
        np.testing.assert_array_equal(a, b)
    srng.seed()  # the constructor's seed
    for a, b in zip(first, f()):
        np.testing.assert_array_equal(a, b)


def test_getitem_and_setitem_give_a_draws_generator():
    srng = RandomStreams(5)
    u = srng.uniform((4,))
    srng[u] = np.random.RandomState(11)
    assert srng[u].get_state()[1][0] == np.random.RandomState(11).get_state()[1][0]
    np.testing.assert_array_equal(jitgraph.function([], u)(),
                                  np.random.RandomState(11).uniform(size=4))
    with pytest.raises(TypeError):
        srng[u] = 3


def test_shared_of_a_random_state():
    rng = np.random.RandomState(4)
    var = jitgraph.shared(rng)
    assert isinstance(var, RandomStateSharedVariable)
    new_r, draw = raw_random.normal(var, (3,))
    f = jitgraph.function([], draw, updates=[(var, new_r)])
    np.testing.assert_array_equal(f(), np.random.RandomState(4).normal(size=3))
    assert not np.array_equal(f(), np.random.RandomState(4).normal(size=3))


def test_draws_are_drawn_once_per_call():
    srng = RandomStreams(234)
    rv_u = srng.uniform((2, 2))
    nearly_zeros = jitgraph.function([], rv_u + rv_u - 2 * rv_u)
    np.testing.assert_allclose(nearly_zeros(), 0.0, atol=1e-15)


def test_pickled_function_keeps_the_generator_state():
    srng = RandomStreams(12)
    f = jitgraph.function([], srng.normal((3,)))
    f()
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(f(), g())


def test_multinomial_probabilities_summing_above_one_by_rounding():
    srng = RandomStreams(2)
    f = jitgraph.function([], srng.multinomial((4,), n=5, pvals=[1 / 3] * 3 + [1e-15]))
    assert f().sum(axis=-1).tolist() == [5] * 4


@pytest.mark.parametrize("inverse", [False, True])
def test_permute_row_elements(inverse):
    from jitgraph.random.permute import permute_row_elements

    x = T.dmatrix("x")
    y = T.lvector("y")
    f = jitgraph.function([x, y], permute_row_elements(x, y, inverse))
    data = np.arange(12.0).reshape(3, 4)
    perm = np.array([2, 0, 3, 1])
    want = np.empty_like(data)
    if inverse:
        want[:, perm] = data
    else:
        want = data[:, perm]
    np.testing.assert_array_equal(f(data, perm), want)
    T.verify_grad(lambda a: permute_row_elements(a, T.constant(perm), inverse), [data],
                  rng=np.random.RandomState(0))


@pytest.mark.parametrize("name,position,who,draw", [
    ("binomial", 3, "x", lambda s, x: s.binomial((3,), n=1, p=x)),
    ("binomial", 3, "x", lambda s, x: s.binomial((3,), n=1, p=x, dtype="float64")),
    ("uniform", 2, "x", lambda s, x: s.uniform((3,), low=x, high=2.0)),
    ("normal", 2, "x", lambda s, x: s.normal((3,), avg=x, std=1.0)),
    ("normal", 3, "x", lambda s, x: s.normal((3,), avg=0.0, std=x)),
    ("poisson", 2, "x", lambda s, x: s.poisson((3,), lam=x)),
])
def test_random_function_gradient_is_undefined(name, position, who, draw):
    """Theano 1.0.5's NullTypeGradError (recorded with the oracle), integer samples included:
    the zero gradient of the integer sample still asks the draw, whose answer is undefined."""
    x = T.dscalar("x")
    with pytest.raises(NullTypeGradError) as info:
        T.grad(T.cast(draw(RandomStreams(12), x), "float64").sum(), x)
    assert str(info.value) == (
        "tensor.grad encountered a NaN. This variable is Null because the grad method for "
        f"input {position} ({who}) of the RandomFunction{{{name}}} op is mathematically "
        "undefined. No gradient defined through raw random numbers op")


def test_a_draw_times_x_differentiates():
    """Theano 1.0.5: grad of sum(uniform((3,)) * x) for RandomStreams(12) is 1.3543836819177344."""
    x = T.dscalar("x")
    g = T.grad((RandomStreams(12).uniform((3,)) * x).sum(), x)
    np.testing.assert_allclose(jitgraph.function([x], g)(0.3), 1.3543836819177344, rtol=1e-15)


def test_streams_index_by_the_draws_shared_generator_as_in_theano():
    # Theano's RandomStreams[item] takes the draw's shared generator: streams[out.rng]
    srng = RandomStreams(3)
    u = srng.uniform((2,))
    assert srng[u.rng] is u.rng.get_value(borrow=True)
    srng[u.rng] = np.random.RandomState(11)
    assert srng[u.rng].get_state()[1][0] == np.random.RandomState(11).get_state()[1][0]
    assert srng[u] is srng[u.rng]
    with pytest.raises(TypeError, match="shared generator"):
        srng[T.dvector()]
