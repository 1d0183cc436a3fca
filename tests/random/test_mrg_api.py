"""MRG_RandomStreams' API as Theano 1.0.5 has it: seeding and its errors, the stream states
(values recorded from Theano), nstreams, sizes, the errors of each distribution, gradients,
updates, and functions that keep their stream state when pickled."""

from __future__ import annotations

import os
import pickle
import warnings

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.gradient import NullTypeGradError
from jitgraph.random import mrg31k3p
from jitgraph.sandbox import rng_mrg
from jitgraph.sandbox.rng_mrg import MRG_RandomStreams, guess_n_streams

#: Theano 1.0.5: MRG_RandomStreams(12345).get_substream_rstates(3, 'float32'), then .rstate,
#: then .rstate after inc_rstate()
THEANO_SUBSTREAMS = [[12345] * 6,
                     [1613322692, 623311037, 1722317882, 1563970864, 792350268, 619030428],
                     [951422716, 416944718, 1329311079, 1678647957, 55905791, 588091391]]
THEANO_RSTATE_AFTER = [336690377, 597094797, 1245771585, 85196284, 523477687, 2094976052]
THEANO_RSTATE_INC = [502033783, 1322587635, 1964121530, 1949818481, 1607232546, 1462898381]


def test_stream_states_are_theanos():
    srng = MRG_RandomStreams(12345)
    np.testing.assert_array_equal(srng.rstate, [12345] * 6)
    rows = srng.get_substream_rstates(3, "float32")
    assert rows.dtype == np.int32
    np.testing.assert_array_equal(rows, THEANO_SUBSTREAMS)
    np.testing.assert_array_equal(srng.rstate, THEANO_RSTATE_AFTER)
    srng.inc_rstate()
    np.testing.assert_array_equal(srng.rstate, THEANO_RSTATE_INC)
    np.testing.assert_array_equal(MRG_RandomStreams([1, 2, 3, 4, 5, 6]).rstate, [1, 2, 3, 4, 5, 6])
    assert MRG_RandomStreams().default_instance_seed == 12345


def test_jump_matrices_are_powers_of_the_transition():
    """Stepping 2**10 times equals the 2**10 jump (the same construction gives 2**72, 2**134)."""
    state = np.asarray([[11, 22, 33, 44, 55, 66]], dtype=np.int32)
    _, stepped = mrg31k3p.draw_integers(state, 2**10)
    np.testing.assert_array_equal(stepped, mrg31k3p.jump(state, 10))


def test_reference_step_matches_the_recurrence():
    s = [5, 6, 7, 8, 9, 10]
    x1, x2 = [7, 6, 5], [10, 9, 8]  # oldest first
    zs = []
    for _ in range(50):
        x1.append((2**22 * x1[-2] + 129 * x1[-3]) % mrg31k3p.M1)
        x2.append((2**15 * x2[-1] + (2**15 + 1) * x2[-3]) % mrg31k3p.M2)
        z = (x1[-1] - x2[-1]) % mrg31k3p.M1
        zs.append(z if z > 0 else mrg31k3p.M1)
    got, _ = mrg31k3p.draw_integers(np.asarray([s], dtype=np.int32), 50)
    np.testing.assert_array_equal(got, zs)


@pytest.mark.parametrize("size, expected", [((10,), 1), ((7, 3), 3), ((1000,), 166),
                                            ((2, 3, 4), 4), ((5,), 5), ((6,), 6), ((7,), 1),
                                            ((13,), 2), ((20,), 3), ((100000,), 15360)])
def test_guess_n_streams_is_theanos(size, expected):
    assert guess_n_streams(size) == expected


def test_numpy_integer_sizes_use_the_most_streams():
    # Theano counts only Python ints as known lengths; Keras passes np.prod(...) of a shape
    assert guess_n_streams((np.int64(18), 1)) == 60 * 256
    draw = MRG_RandomStreams(seed=1234).uniform((np.int64(18), 1), low=-0.5, high=0.5,
                                                dtype="float32").eval().ravel()
    # recorded under Theano 1.0.5: the first three samples come from the same streams as
    # those of size (18, 1), the rest from others
    np.testing.assert_array_equal(draw[:6], np.asarray(
        [-0.12742892, 0.15768576, 0.09250671, -0.18068531, 0.279792, -0.46983814], "float32"))
    plain = MRG_RandomStreams(seed=1234).uniform((18, 1), low=-0.5, high=0.5,
                                                 dtype="float32").eval().ravel()
    np.testing.assert_array_equal(plain[:6], np.asarray(
        [-0.12742892, 0.15768576, 0.09250671, -0.13953573, -0.19970992, 0.37304795], "float32"))


def test_symbolic_size_uses_the_most_streams():
    x = T.matrix()
    assert guess_n_streams(x.shape) == 60 * 256
    with pytest.warns(UserWarning, match="number of streams"):
        guess_n_streams(x.shape, warn=True)


@pytest.mark.parametrize("seed, error, message", [
    (0, ValueError, "seed should not be 0"),
    (rng_mrg.M2, ValueError, "seed should be less than 2147462579"),
    (2**40, ValueError, "seed should be less than"),
    (False, ValueError, "seed should not be 0"),
    ([0, 0, 0, 1, 1, 1], ValueError, "The first 3 values of seed should not be all 0"),
    # Theano's order: both all-zero checks before the bounds
    ([0, 0, 0, rng_mrg.M2, 1, 1], ValueError, "first 3 values of seed should not be all 0"),
    ([rng_mrg.M1, 0, 0, 0, 0, 0], ValueError, "last 3 values of seed should not be all 0"),
    ([rng_mrg.M1, 1, 1, rng_mrg.M2, 1, 1], ValueError, "first 3 values .* less than"),
    ([1, 1, 1, 0, 0, 0], ValueError, "The last 3 values of seed should not be all 0"),
    ([rng_mrg.M1, 1, 1, 1, 1, 1], ValueError, "first 3 values of seed should be less than"),
    ([1, 1, 1, rng_mrg.M2, 1, 1], ValueError, "last 3 values of seed should be less than"),
    ([1, 2, 3], TypeError, "seed should be 1 integer or 6 integers"),
    (1.5, TypeError, "seed should be 1 integer or 6 integers"),
    ([[1], [2], [3], [4], [5], [6]], TypeError, "seed should be 1 integer or 6 integers"),
])
def test_bad_seeds(seed, error, message):
    with pytest.raises(error, match=message):
        MRG_RandomStreams(seed)
    srng = MRG_RandomStreams(1)
    with pytest.raises(error, match=message):
        srng.seed(seed)


@pytest.mark.parametrize("size", [(0,), (3, -1), (2, 0, 2)])
def test_sizes_with_empty_dimensions_are_refused(size):
    with pytest.raises(ValueError, match="dimension with value <= 0"):
        MRG_RandomStreams(1).uniform(size)


@pytest.mark.parametrize("size", [3, None, 2.5])
def test_sizes_must_be_tuples_or_vectors(size):
    with pytest.raises(TypeError, match="size must be a tuple of int"):
        MRG_RandomStreams(1).uniform(size)


def test_normal_sizes_follow_theanos_rules():
    """normal (and truncated_normal) take an int or a scalar variable as a 1-d size, and lists;
    the numbers are those of the tuple (values recorded from Theano 1.0.5, float64)."""
    s = T.lscalar()
    with jitgraph.config.change_flags(floatX="float64"):
        want = [-1.687619, 0.363098, -0.188829]
        for size, args in ((3, ()), ((3,), ()), ([3], ()), (s, (3,))):
            f = jitgraph.function([s] if args else [], MRG_RandomStreams(123).normal(size))
            np.testing.assert_allclose(f(*args), want, atol=1e-6)
        f = jitgraph.function([s], MRG_RandomStreams(123).truncated_normal(s, std=2.0))
        np.testing.assert_allclose(f(5), [1.324766, 1.730048, -2.575861, -3.626693, 1.672291],
                                   atol=1e-6)
        assert jitgraph.function([], MRG_RandomStreams(123).normal(0))().shape == (0,)
    srng = MRG_RandomStreams(1)
    for size, message in (((0,), "Non-positive dimensions not allowed in size."),
                          ((2, -1), "Non-positive dimensions not allowed in size."),
                          ((2.0,), "Only Theano variables and integers are allowed"),
                          (T.lmatrix(), "must have 1 dimension to be a valid size"),
                          ((T.lvector(),), "Non-scalar Theano variable in size"),
                          ("ab", "Size must be a int, tuple, list or Theano variable."),
                          (-2, "negative")):
        for draw in (srng.normal, srng.truncated_normal):
            with pytest.raises(ValueError, match=message):
                draw(size)


def test_distribution_errors_have_theanos_messages():
    srng = MRG_RandomStreams(1)
    pv = np.asarray([[0.5, 0.5]])
    cases = [
        (lambda: srng.binomial((3,), n=2), NotImplementedError,
         "MRG_RandomStreams.binomial with n > 1"),
        (lambda: srng.multinomial(pvals=[0.2, 0.8]), NotImplementedError, "pvals.ndim = 2"),
        (lambda: srng.multinomial(size=(2,), pvals=pv), ValueError, "Provided a size argument"),
        (lambda: srng.multinomial(ndim=2, pvals=pv), ValueError, "Provided an ndim argument"),
        (lambda: srng.multinomial(), TypeError, "You have to specify pvals"),
        (lambda: srng.choice(size=2, p=pv), NotImplementedError, "without replacement"),
        (lambda: srng.choice(size=2, a=3, p=pv, replace=False), TypeError, "a has to be None"),
        (lambda: srng.choice(size=2, replace=False), TypeError, "p has to be specified"),
        (lambda: srng.choice(size=2, p=[0.5, 0.5], replace=False), NotImplementedError,
         "p.ndim = 2"),
        (lambda: srng.choice(size=2, p=pv, replace=False, ndim=1), ValueError, "ndim argument"),
        (lambda: srng.uniform((2, 3), ndim=3), ValueError, "ndim=3"),
        (lambda: srng.uniform((2,), dtype="int32"), TypeError, "float16, float32 or float64"),
    ]
    for build, error, message in cases:
        with pytest.raises(error, match=message):
            build()


def test_choice_of_more_outcomes_than_possible_fails_at_run_time():
    srng = MRG_RandomStreams(1)
    f = jitgraph.function([], srng.choice(size=3, p=np.asarray([[0.5, 0.5]]), replace=False))
    with pytest.raises(ValueError, match="without replacement n samples bigger"):
        f()


def test_output_types_follow_the_size():
    srng = MRG_RandomStreams(1)
    x = T.matrix()
    assert srng.uniform((3, 1)).broadcastable == (False, True)
    assert srng.uniform((1,)).broadcastable == (True,)
    assert srng.uniform(x.shape).type == T.matrix().type
    assert srng.uniform((x.shape[0], 3)).ndim == 2
    assert srng.binomial((3,)).dtype == "int64"
    assert srng.normal((3,), avg=np.float64(1)).dtype == "float64"
    with jitgraph.config.change_flags(floatX="float32"):
        assert srng.uniform((3,)).dtype == "float32"
        assert srng.uniform((3,), dtype="float64").dtype == "float64"
        assert srng.normal((3,)).dtype == "float32"
    assert str(srng.uniform((3,)).owner.op).startswith("mrg_uniform{")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wo = srng.multinomial_wo_replacement(n=1, pvals=np.asarray([[0.5, 0.5]]))
    assert wo.broadcastable == (True, False)  # Theano: a row
    assert "deprecated" in str(caught[0].message)


def test_state_updates_and_updates():
    srng = MRG_RandomStreams(1)
    u = srng.uniform((3,))
    n = srng.normal((2, 2), nstreams=4)
    assert len(srng.state_updates) == 2
    old_r, new_r, size, nstreams = srng.state_updates[0]
    assert size == (3,) and nstreams is None
    assert old_r.default_update is new_r
    assert old_r.get_value().shape == (3, 6)
    assert srng.state_updates[1][0].get_value().shape == (4, 6)
    assert srng.updates() == srng.state_updates
    assert u.update[0] is old_r
    assert n.ndim == 2


def test_function_advances_and_no_default_updates_does_not():
    srng = MRG_RandomStreams(99)
    u = srng.uniform((5,))
    f = jitgraph.function([], u)
    g = jitgraph.function([], u, no_default_updates=True)
    a, b = f(), f()
    assert not np.array_equal(a, b)
    c, d = g(), g()
    np.testing.assert_array_equal(c, d)


def test_reseeding_repeats_the_draws():
    srng = MRG_RandomStreams(5)
    f = jitgraph.function([], [srng.uniform((4,)), srng.normal((3,)),
                               srng.binomial((2, 2), p=0.4)])
    first = f()
    srng.seed(5)
    again = f()
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


#: Theano 1.0.5's error for a gradient through an MRG draw's parameters (all distributions)
MRG_NULL = ("tensor.grad encountered a NaN. This variable is Null because the grad method for "
            "input 0 ({}) of the UndefinedGrad op is mathematically undefined. ")


@pytest.mark.parametrize("name,draw", [
    ("binomial float64", lambda s, x: s.binomial((3,), p=x, dtype="float64")),
    ("binomial int64", lambda s, x: s.binomial((3,), p=x)),
    ("uniform low", lambda s, x: s.uniform((3,), low=x, high=2.0)),
    ("uniform high", lambda s, x: s.uniform((3,), low=0.0, high=x)),
    ("normal avg", lambda s, x: s.normal((4,), avg=x, std=1.0)),
    ("normal std", lambda s, x: s.normal((4,), avg=0.0, std=x)),
    ("truncated_normal", lambda s, x: s.truncated_normal((4,), avg=x, std=1.0)),
    ("multinomial", lambda s, x: s.multinomial(
        pvals=T.stack([x, 1 - x]).dimshuffle("x", 0), dtype="float64")),
])
def test_gradient_through_a_draw_is_undefined_as_in_theano(name, draw):
    """Theano 1.0.5 raises NullTypeGradError for each of these (recorded with the oracle),
    binomial included: its comparison passes a zero gradient on to p's undefined_grad."""
    x = T.dscalar("x")
    with pytest.raises(NullTypeGradError) as info:
        T.grad(T.cast(draw(MRG_RandomStreams(12), x), "float64").sum(), x)
    who = "InplaceDimShuffle{x,0}.0" if name == "multinomial" else "x"
    assert str(info.value) == MRG_NULL.format(who)
    g = T.grad(draw(MRG_RandomStreams(12), x).sum(), x, null_gradients="return")
    assert type(g.type).__name__ == "NullType"


def test_draws_used_by_a_graph_are_constants_for_grad():
    srng = MRG_RandomStreams(12)
    x = T.dvector("x")
    mask = srng.binomial((3,), p=0.5, dtype="float64")
    g = jitgraph.function([x], T.grad((x * mask).sum(), x))
    assert set(np.unique(g(np.ones(3)))) <= {0.0, 1.0}
    # Theano 1.0.5: grad of sum(uniform((3,)) * x) for MRG_RandomStreams(12), first call
    xs = T.dscalar("xs")
    f = jitgraph.function([xs], T.grad((MRG_RandomStreams(12).uniform((3,)) * xs).sum(), xs))
    np.testing.assert_allclose(f(0.3), 1.1049231328070164, rtol=1e-15)


def test_one_undefined_grad():
    """rng_mrg's undefined_grad is theano.gradient's."""
    from jitgraph.gradient import undefined_grad

    assert rng_mrg.undefined_grad is undefined_grad


def test_compiled_graph_has_no_undefined_grad_nodes():
    srng = MRG_RandomStreams(1)
    f = jitgraph.function([], srng.uniform((3,), low=-1.0, high=2.0))
    names = {type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}
    assert "UndefinedGrad" not in names
    assert {"MRGUniform", "MulAdd"} <= names


def test_pickled_function_keeps_its_stream_state():
    srng = MRG_RandomStreams(42)
    f = jitgraph.function([], srng.uniform((6,)))
    f()
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(f(), g())
    np.testing.assert_array_equal(f(), g())


def test_unpickled_function_reoptimized_keeps_its_stream_state():
    srng = MRG_RandomStreams(42)
    f = jitgraph.function([], [srng.uniform((6,)), srng.normal((3,))])
    f()
    data = pickle.dumps(f)
    with jitgraph.config.change_flags(reoptimize_unpickled_function=True):
        g = pickle.loads(data)
    for _ in range(2):
        for a, b in zip(f(), g()):
            np.testing.assert_array_equal(a, b)


def test_profiled_function_draws_the_same_numbers():
    def draws(profile):
        srng = MRG_RandomStreams(8)
        f = jitgraph.function([], [srng.uniform((5,)), srng.binomial((4,), p=0.3)],
                              profile=profile)
        return f, f() + f()

    _, reference = draws(False)
    f, got = draws(jitgraph.compile.profiling.ProfileStats(atexit_print=False))
    for a, b in zip(reference, got):
        np.testing.assert_array_equal(a, b)
    assert f.profile.fct_callcount == 2 and "mrg_uniform" in f.profile.summary()


@pytest.mark.parametrize("mode", ["DebugMode", "FAST_COMPILE", "NanGuardMode"])
def test_modes_draw_the_same_numbers(mode):
    from jitgraph.compile.nanguardmode import NanGuardMode

    def draws(mode_arg):
        srng = MRG_RandomStreams(8)
        f = jitgraph.function([], [srng.uniform((5,), low=1.0, high=3.0), srng.normal((3,))],
                              mode=mode_arg)
        return f() + f()

    reference = draws(None)
    chosen = NanGuardMode(nan_is_error=True, inf_is_error=True) if mode == "NanGuardMode" \
        else mode
    for a, b in zip(reference, draws(chosen)):
        np.testing.assert_allclose(a, b, rtol=1e-15)


def test_warm_process_loads_the_graph_and_draws_the_same_numbers(tmp_path):
    """A second process compiles the same draws from the cached rewritten graph; the draws
    still advance the user's shared states."""
    import subprocess
    import sys

    script = tmp_path / "draws.py"
    script.write_text(
        "import jitgraph\n"
        "from jitgraph.sandbox.rng_mrg import MRG_RandomStreams\n"
        "from jitgraph.tensor.shared_randomstreams import RandomStreams\n"
        "s, r = MRG_RandomStreams(3), RandomStreams(4)\n"
        "f = jitgraph.function([], [s.uniform((4,), low=-1., high=2.), r.normal((2,))])\n"
        "a, b = f(), f()\n"
        "assert (a[0] != b[0]).all()\n"
        "print(f.maker.graph_from_cache, repr(b[0].tolist()), repr(b[1].tolist()))\n")
    env = dict(os.environ, JITGRAPH_FLAGS=f"base_compiledir={tmp_path / 'cache'}")
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env=env, timeout=300) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    cold, warm = (run.stdout.split(" ", 1) for run in runs)
    assert cold[0] == "False" and warm[0] == "True"
    assert cold[1] == warm[1]


def test_choice_without_replacement_has_the_pattern_of_pvals():
    """Theano 1.0.5's type: pvals of shape (10, 1) (one outcome per row, broadcastable) give
    a (False, True) sample; a matrix of several outcomes gives (False, False) for any n."""
    R = MRG_RandomStreams(234)
    column = np.full((10, 1), 0.1)
    assert R.choice(a=None, size=1, replace=False, p=column).broadcastable == (False, True)
    p = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    for n in (1, 2):
        assert R.choice(a=None, size=n, replace=False, p=p).broadcastable == (False, False)
