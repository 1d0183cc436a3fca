"""Programs with random draws as Theano users write them, parametrised on the library module.

``record_random_programs.py`` runs them under Theano 1.0.5 (the oracle) and stores what they
print in ``theano_random_programs.npz``; ``test_random_programs.py`` runs them with jitgraph
(``import jitgraph as theano``) and compares. Each program returns a dict of arrays.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

PROGRAMS: dict[str, Callable[[Any], dict]] = {}


def program(fn: Callable[[Any], dict]) -> Callable[[Any], dict]:
    PROGRAMS[fn.__name__] = fn
    return fn


def _streams(theano: Any) -> tuple[Any, Any]:
    __import__(f"{theano.__name__}.tensor.shared_randomstreams")
    __import__(f"{theano.__name__}.sandbox.rng_mrg")
    return theano.tensor.shared_randomstreams.RandomStreams, theano.sandbox.rng_mrg.MRG_RandomStreams


@program
def tutorial_using_random_numbers(theano: Any) -> dict:
    """The tutorial's "Using Random Numbers", "Seeding Streams" and "Sharing Streams"."""
    RandomStreams, _ = _streams(theano)
    function = theano.function
    srng = RandomStreams(seed=234)
    rv_u = srng.uniform((2, 2))
    rv_n = srng.normal((2, 2))
    f = function([], rv_u)
    g = function([], rv_n, no_default_updates=True)
    nearly_zeros = function([], rv_u + rv_u - 2 * rv_u)
    out = {"f_val0": f(), "f_val1": f(), "g_val0": g(), "g_val1": g(),
           "nearly_zeros": nearly_zeros()}
    rng_val = rv_u.rng.get_value(borrow=True)
    rng_val.seed(89234)
    rv_u.rng.set_value(rng_val, borrow=True)
    out["after_rng_seed"] = f()
    srng.seed(902340)
    out["after_srng_seed_u"], out["after_srng_seed_n"] = f(), g()
    state_after_v0 = rv_u.rng.get_value().get_state()
    nearly_zeros()
    out["v1"] = f()
    rng = rv_u.rng.get_value(borrow=True)
    rng.set_state(state_after_v0)
    rv_u.rng.set_value(rng, borrow=True)
    out["v2"], out["v3"] = f(), f()
    return out


def _copy_random_state(theano: Any, use_mrg: bool) -> dict:
    RandomStreams, MRG_RandomStreams = _streams(theano)

    class Graph:
        def __init__(self, seed: int = 123) -> None:
            self.rng = (MRG_RandomStreams if use_mrg else RandomStreams)(seed)
            self.y = self.rng.uniform(size=(1,))

    g1 = Graph(seed=123)
    f1 = theano.function([], g1.y)
    g2 = Graph(seed=987)
    f2 = theano.function([], g2.y)
    out = {"f1_before": f1(), "f2_before": f2()}

    def copy_random_state(g1: Graph, g2: Graph) -> None:
        if isinstance(g1.rng, MRG_RandomStreams):
            g2.rng.rstate = g1.rng.rstate
        for (su1, su2) in zip(g1.rng.state_updates, g2.rng.state_updates):
            su2[0].set_value(su1[0].get_value())

    copy_random_state(g1, g2)
    out["f1_after"], out["f2_after"] = f1(), f2()
    return out


@program
def tutorial_copy_random_state(theano: Any) -> dict:
    """The tutorial's "Copying Random State Between Theano Graphs" (RandomStreams)."""
    return _copy_random_state(theano, use_mrg=False)


@program
def tutorial_copy_random_state_mrg(theano: Any) -> dict:
    """The same with MRG_RandomStreams."""
    return _copy_random_state(theano, use_mrg=True)


@program
def other_distributions(theano: Any) -> dict:
    """raw_random's other distributions through RandomStreams, several per function."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    srng = RandomStreams(seed=4321)
    m = T.dmatrix("m")
    outs = [srng.binomial((3, 4), n=5, p=0.25), srng.random_integers((5,), low=-2, high=7),
            srng.poisson((4,), lam=2.5), srng.choice((6,), a=4, p=[0.1, 0.2, 0.3, 0.4]),
            srng.choice((3,), a=6, replace=False), srng.permutation((2,), n=5),
            srng.multinomial((3,), n=8, pvals=[0.2, 0.5, 0.3]),
            srng.shuffle_row_elements(m), srng.normal(avg=np.zeros((2, 3)), std=2.0)]
    f = theano.function([m], outs)
    data = np.arange(12.0).reshape(3, 4)
    first, second = f(data), f(data)
    return {f"d{i}_{k}": v for k, vals in enumerate((first, second)) for i, v in enumerate(vals)}


@program
def mrg_draws_float32(theano: Any) -> dict:
    """MRG draws under floatX=float32: one function drawing several distributions, a symbolic
    size, truncated normals, reseeding between calls."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    out = {}
    with theano.change_flags(floatX="float32"):
        srng = MRG_RandomStreams(seed=[11, 22, 33, 44, 55, 66])
        x = T.matrix("x")
        draws = [srng.uniform((5, 3), low=0.1, high=0.7), srng.normal(x.shape, avg=2.0, std=0.5),
                 srng.truncated_normal((7,), std=3.0), srng.binomial(x.shape, p=0.25),
                 srng.multinomial(pvals=np.asarray([[0.3, 0.7], [0.9, 0.1]], "float32"), n=3)]
        f = theano.function([x], draws)
        data = np.zeros((4, 6), dtype="float32")
        for k in range(2):
            for i, v in enumerate(f(data)):
                out[f"d{i}_{k}"] = v
        srng.seed(77)
        for i, v in enumerate(f(data)):
            out[f"d{i}_reseeded"] = v
    return out


@program
def dropout_mlp_mrg(theano: Any) -> dict:
    """A one-hidden-layer network trained with dropout masks from MRG_RandomStreams
    (float64)."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    data = np.random.RandomState(0)
    X = data.randn(20, 5)
    Y = (X.sum(axis=1) > 0).astype("float64")
    W1 = theano.shared(data.randn(5, 8) * 0.3, name="W1")
    W2 = theano.shared(data.randn(8) * 0.3, name="W2")
    srng = MRG_RandomStreams(seed=2024)
    x, y = T.dmatrix("x"), T.dvector("y")
    h = T.tanh(T.dot(x, W1))
    mask = srng.binomial(size=h.shape, p=0.5, dtype="float64")
    p = T.nnet.sigmoid(T.dot(h * mask, W2))
    cost = T.nnet.binary_crossentropy(p, y).mean()
    g1, g2 = T.grad(cost, [W1, W2])
    train = theano.function([x, y], cost, updates=[(W1, W1 - 0.5 * g1), (W2, W2 - 0.5 * g2)])
    costs = [train(X, Y) for _ in range(6)]
    return {"costs": np.asarray(costs), "W1": W1.get_value(), "W2": W2.get_value()}


@program
def denoising_autoencoder(theano: Any) -> dict:
    """The dA tutorial's corruption (``binomial(size=input.shape, n=1, p=1-level)`` from
    RandomStreams) and a few training steps of the tied-weight autoencoder (float64)."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    numpy_rng = np.random.RandomState(123)
    theano_rng = RandomStreams(numpy_rng.randint(2 ** 30))
    n_visible, n_hidden = 12, 5
    bound = 4 * np.sqrt(6.0 / (n_hidden + n_visible))
    W = theano.shared(numpy_rng.uniform(-bound, bound, (n_visible, n_hidden)), name="W")
    bh = theano.shared(np.zeros(n_hidden), name="bh")
    bv = theano.shared(np.zeros(n_visible), name="bv")
    x = T.dmatrix("x")
    tilde = theano_rng.binomial(size=x.shape, n=1, p=0.7, dtype="float64") * x
    y = T.nnet.sigmoid(T.dot(tilde, W) + bh)
    z = T.nnet.sigmoid(T.dot(y, W.T) + bv)
    cost = T.mean(-T.sum(x * T.log(z) + (1 - x) * T.log(1 - z), axis=1))
    grads = T.grad(cost, [W, bh, bv])
    train = theano.function([x], cost, updates=[(p, p - 0.1 * g) for p, g in
                                                 zip([W, bh, bv], grads)])
    data = (numpy_rng.rand(16, n_visible) > 0.5).astype("float64")
    costs = [train(data) for _ in range(5)]
    return {"costs": np.asarray(costs), "W": W.get_value()}


@program
def rbm_gibbs_step(theano: Any) -> dict:
    """One RBM Gibbs step (hidden then visible samples) with RandomStreams.binomial whose
    ``p`` is a computed matrix, repeated by calling the function (no scan)."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    rng = np.random.RandomState(5)
    W = theano.shared(rng.randn(6, 4) * 0.5, name="W")
    v = T.dmatrix("v")
    srng = RandomStreams(rng.randint(2 ** 30))
    h_mean = T.nnet.sigmoid(T.dot(v, W))
    h = srng.binomial(size=h_mean.shape, n=1, p=h_mean, dtype="float64")
    v_mean = T.nnet.sigmoid(T.dot(h, W.T))
    v_sample = srng.binomial(size=v_mean.shape, n=1, p=v_mean, dtype="float64")
    step = theano.function([v], [h, v_sample])
    state = (rng.rand(3, 6) > 0.5).astype("float64")
    out = {}
    for k in range(4):
        hk, state = step(state)
        out[f"h{k}"], out[f"v{k}"] = hk, state
    return out
