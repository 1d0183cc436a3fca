"""Negative ``MRG_RandomStreams`` seeds draw what Theano 1.0.5 drew.

Theano checks a seed only from above: ``MRG_RandomStreams(-5)`` (or six integers with negative
words) starts from states outside MRG31k3p's range, which its C code steps in wrapping int32
arithmetic. ``theano_negative_seeds.json``/``.npz`` (made by ``record_negative_seeds.py`` under
the oracle) hold its draws for nine such seeds, both floatX, every distribution, tuple and
symbolic sizes, 15360 streams, reseeding; the compiled kernel and the ``perform`` path must give
them bit for bit (``normal`` to a few ulps: Box-Muller goes through log/cos/sin), and the states
must match too. Also: the seed forms the constructor takes or refuses, and the step helpers.
"""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.random import mrg31k3p
from jitgraph.sandbox import rng_mrg
from jitgraph.sandbox.rng_mrg import MRG_RandomStreams

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "theano_negative_seeds.json")) as _f:
    RECORD = json.load(_f)
DRAWS = np.load(os.path.join(HERE, "theano_negative_seeds.npz"))
CASES = RECORD["cases"]
#: the perform path is checked on every case of these methods (compiling every case twice
#: would double the file's time for little more)
PERFORM_METHODS = ("uniform", "normal", "binomial")


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def _seed(value):
    return tuple(value) if isinstance(value, list) else value


def _build(case: dict, srng):
    kw = dict(case["kwargs"])
    fx = case["floatX"]
    if kw.get("size") == "x.shape of a (3, 4) input":
        x = T.matrix("x")
        return srng.uniform(size=x.shape), [x], [np.zeros((3, 4), dtype=fx)]
    if isinstance(kw.get("size"), list):
        kw["size"] = tuple(kw["size"])
    for name in ("p", "pvals"):
        if isinstance(kw.get(name), list):
            kw[name] = np.asarray(kw[name], dtype=fx)
    return getattr(srng, case["method"])(**kw), [], []


def _run(case: dict, mode):
    with jitgraph.config.change_flags(floatX=case["floatX"]):
        srng = MRG_RandomStreams(_seed(case["seed"]))
        out, inputs, values = _build(case, srng)
        f = jitgraph.function(inputs, out, mode=mode)
        calls = case["reseed_after"] or case["draws"]
        draws = [np.asarray(f(*values)) for _ in range(calls)]
        if case["reseed_after"] is not None:
            srng.seed(_seed(case["reseed_to"]))
            draws += [np.asarray(f(*values)) for _ in range(case["draws"] - calls)]
        states = [old.get_value() for old, _, _, _ in srng.state_updates]
    return draws, states, srng.rstate


def _check(case: dict, mode) -> None:
    draws, states, rstate = _run(case, mode)
    assert rstate.tolist() == case["rstate_after"]
    assert [_digest(s) for s in states] == case["state_digests"]
    assert len(draws) == case["draws"]
    for j, got in enumerate(draws):
        assert got.dtype == case["dtype"] and list(got.shape) == case["shape"], j
        if "digests" in case:
            assert got.reshape(-1)[:8].tolist() == case["heads"][j]
            assert _digest(got) == case["digests"][j], f"draw {j}"
            continue
        want = DRAWS[f"case{case['id']}_draw{j}"]
        if case["method"] == "normal":
            eps = np.finfo(want.dtype).eps
            np.testing.assert_allclose(got, want, rtol=8 * eps, atol=8 * eps,
                                       equal_nan=True, err_msg=f"draw {j}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"draw {j}")


def _case_id(case: dict) -> str:
    return f"{case['id']}-{case['floatX'][-2:]}-{case['method']}-{case['seed']}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_compiled_draws_equal_theanos(case: dict) -> None:
    _check(case, None)


@pytest.mark.parametrize("case", [c for c in CASES if c["method"] in PERFORM_METHODS],
                         ids=_case_id)
def test_perform_draws_equal_theanos(case: dict) -> None:
    _check(case, "FAST_COMPILE")


def test_the_record_is_complete() -> None:
    assert len(CASES) == 178
    assert len(DRAWS.files) == sum(c["draws"] for c in CASES if "digests" not in c)


def test_seed_minus_five_as_in_the_issue() -> None:
    srng = MRG_RandomStreams(seed=-5)
    u = srng.uniform((5,))
    assert srng.rstate.tolist() == [-274986441, -890025462, -1782681152, -1456899561,
                                    -1357923274, -727976384]
    np.testing.assert_allclose(jitgraph.function([], u)(),
                               [0.99039647, 0.31823093, 0.23096751, 0.42253345, 0.30396171],
                               rtol=1e-7)


@pytest.mark.parametrize("form", RECORD["seed_forms"], ids=lambda f: repr(f["seed"])[:30])
def test_seed_forms_as_theano(form: dict) -> None:
    """The constructor and ``seed()`` start from Theano's state, or refuse with its error."""
    seed = form["seed"]
    if "error" in form:
        error = {"ValueError": ValueError, "TypeError": TypeError}[form["error"]]
        with pytest.raises(error) as info:
            MRG_RandomStreams(seed)
        assert str(info.value.args[0]).startswith(form["message"])
        with pytest.raises(error):
            MRG_RandomStreams(1).seed(seed)
        return
    assert MRG_RandomStreams(seed).rstate.tolist() == form["state"]
    srng = MRG_RandomStreams(1)
    srng.seed(seed)
    assert srng.rstate.tolist() == form["state"]


def test_numpy_integer_seeds_are_taken_as_ints() -> None:
    """Theano 1.0.5 refused NumPy integers (``object of type 'numpy.int64' has no len()``);
    jitgraph takes them as the int they hold."""
    for seed in (np.int64(-7), np.int32(5), np.uint8(3)):
        want = MRG_RandomStreams(int(seed)).rstate.tolist()
        assert MRG_RandomStreams(seed).rstate.tolist() == want


@pytest.mark.parametrize("record", RECORD["helpers"], ids=lambda r: str(r["state"][0]))
def test_step_helpers_on_negative_words(record: dict) -> None:
    s = np.asarray(record["state"], dtype=np.int32)
    assert rng_mrg.ff_2p134(s).tolist() == record["ff_2p134"]
    assert rng_mrg.ff_2p72(s).tolist() == record["ff_2p72"]
    a1, a2 = mrg31k3p.jump_matrices(mrg31k3p.SUBSTREAM_LOG2)
    assert rng_mrg.multMatVect(s, np.asarray(a1, dtype=np.int64), rng_mrg.M1,
                               np.asarray(a2, dtype=np.int64), rng_mrg.M2).tolist() \
        == record["multMatVect"]
    # the module-level helper reduces as Python does (non-negative), unlike the op
    assert rng_mrg.matVecModM(np.asarray(a1, dtype=np.int64), s[:3], rng_mrg.M1).tolist() \
        == record["matVecModM"]
    new = np.zeros(6, dtype=np.int32)
    value = rng_mrg.mrg_next_value(s.copy(), new, np.float64(2.0**-31), -1, 0)
    assert new.tolist() == record["next_state"]
    assert float(value) == record["next_value"]


def test_int32_step_equals_the_int64_step_in_range() -> None:
    """The wrapping int32 arithmetic (any state) and the int64 one (states in range) agree on
    states in range, the edges included."""
    rng = np.random.default_rng(0)
    st = np.concatenate([rng.integers(0, mrg31k3p.M1, (3000, 3)),
                         rng.integers(0, mrg31k3p.M2, (3000, 3))], axis=1)
    st[:10, :3] = mrg31k3p.M1 - 1
    st[10:20, 3:] = mrg31k3p.M2 - 1
    st[20:30] = 0
    st[30:40] = rng.integers(0, 3, (10, 6))
    wide, narrow = st.T.astype(np.int64).copy(), st.T.astype(np.int32).copy()
    for _ in range(4):
        np.testing.assert_array_equal(mrg31k3p._step(wide), mrg31k3p.step_int32(narrow))
        np.testing.assert_array_equal(wide, narrow)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nstreams, n", [(1, 7), (3, 7), (100, 1000), (257, 3001)])
def test_kernel_equals_perform_on_any_int32_state(dtype, nstreams, n) -> None:
    """Full-range int32 state matrices (-2**31 included): the compiled kernel, the perform
    path and the reference agree, samples and states."""
    from jitgraph.random.mrg_op import mrg_uniform

    rng = np.random.default_rng(nstreams)
    st = rng.integers(-2**31, 2**31, (nstreams, 6)).astype(np.int32)
    st[0] = -2**31
    state = jitgraph.shared(st.copy())
    new, u = mrg_uniform(state, np.array([n]), dtype)
    compiled = jitgraph.function([], [new, u])()
    performed = jitgraph.function([], [new, u], mode="FAST_COMPILE")()
    z, want_state = mrg31k3p.draw_integers(st, n)
    for got in (compiled, performed):
        np.testing.assert_array_equal(got[0], want_state)
        np.testing.assert_array_equal(got[1], mrg31k3p.to_unit_interval(z, dtype))
