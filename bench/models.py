"""The benchmark programs, written once per system: the seeds' logistic regression and the
784-256-128-10 MLP training step of ``examples/mlp.py``.

Every builder returns ``(graph, compile_fn)``: ``graph`` is the symbolic/traced description (built
when the builder runs: that time is reported as "graph building"), ``compile_fn()`` does what a
user calls to compile (``function(...)`` / ``jax.jit``) and returns ``step(*data)``. What is
timed as "compile" is ``compile_fn()`` plus the first ``step(*data)`` (JAX traces and compiles at
the first call, jitgraph compiles kernels lazily at their first call).

Semantics (the same for every system): logistic regression ``p = sigmoid(x.w + b)``
(the seed's naive formula for jitgraph and PyTensor, whose rewrites stabilise it; stable forms
written by hand for JAX and NumPy, which do not),
outputs ``(p > 0.5, xent)``, updates ``w -= 0.01 gw``, ``b -= 0.01 gb`` of
``mean(xent) + 0.01 sum(w**2)``; MLP: two tanh layers, softmax, mean categorical cross-entropy,
SGD with learning rate 0.1 on every parameter, output the cost.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

N_SAMPLES, N_FEATURES = 400, 784
MLP_SIZES = (784, 256, 128, 10)
MLP_SAMPLES = 2000
MLP_LR = 0.1


def logreg_data(dtype: str) -> tuple:
    rng = np.random.RandomState(0)
    data = (rng.randn(N_SAMPLES, N_FEATURES).astype(dtype),
            rng.randint(0, 2, N_SAMPLES).astype(dtype))
    w0 = rng.randn(N_FEATURES).astype(dtype)
    return data, w0


def mlp_data(dtype: str) -> tuple:
    """``examples/mlp.py``'s data and initial parameters: ``make_data(2000, 784, 10)`` and
    ``init_params(sizes)`` draw exactly these numbers (same generators, seeds and order), without
    importing jitgraph (so that other systems' processes do not load it)."""
    rng = np.random.default_rng(0)
    centers = rng.normal(0.0, 2.0, size=(MLP_SIZES[-1], MLP_SIZES[0]))
    labels = rng.integers(0, MLP_SIZES[-1], size=MLP_SAMPLES)
    features = centers[labels] + rng.normal(0.0, 1.0, size=(MLP_SAMPLES, MLP_SIZES[0]))
    prng = np.random.default_rng(1)
    params = []
    for n_in, n_out in itertools.pairwise(MLP_SIZES):
        scale = np.sqrt(2.0 / (n_in + n_out))
        params += [prng.normal(0.0, scale, (n_in, n_out)).astype(dtype),
                   np.zeros(n_out, dtype=dtype)]
    return (features.astype(dtype), labels.astype("int64")), params


# -- jitgraph and PyTensor (the same Theano API) ----------------------------------------------

def _theano_like(system: str) -> tuple[Any, Any, Callable, Any]:
    """(module, tensor module, grad, mode) for ``jitgraph``, ``pytensor-c``, ``pytensor-numba``."""
    if system.startswith("jitgraph"):
        import jitgraph
        import jitgraph.tensor as T

        return jitgraph, T, T.grad, "FAST_RUN"
    import pytensor
    import pytensor.tensor as pt
    from pytensor.compile.mode import get_mode

    # PyTensor 3: FAST_RUN means its Numba linker; its C backend is the "CVM" mode
    # (Mode(linker="cvm", optimizer="fast_run")).
    mode = get_mode("CVM" if system == "pytensor-c" else "NUMBA")
    return pytensor, pt, pytensor.grad, mode


def logreg_theano(system: str, dtype: str) -> tuple:
    lib, T, grad, mode = _theano_like(system)
    data, w0 = logreg_data(dtype)
    x, y = T.matrix("x", dtype=dtype), T.vector("y", dtype=dtype)
    w = lib.shared(w0, name="w")
    b = lib.shared(np.asarray(0.0, dtype=dtype), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = grad(cost, [w, b])

    def compile_fn() -> Callable:
        return lib.function([x, y], [p_1 > 0.5, xent],
                            updates=[(w, w - 0.01 * gw), (b, b - 0.01 * gb)], mode=mode)

    return data, compile_fn


def mlp_theano(system: str, dtype: str) -> tuple:
    """jitgraph: the graph of ``examples/mlp.py`` (its ``init_params``, ``T.nnet``); PyTensor:
    the same graph with ``pytensor.tensor.special.softmax`` and an indexed log-likelihood."""
    lib, T, grad, mode = _theano_like(system)
    data, values = mlp_data(dtype)
    x, y = T.matrix("x", dtype=dtype), T.vector("y", dtype="int64")
    params = [lib.shared(v, name=f"p{k}") for k, v in enumerate(values)]
    hidden = x
    for k in range(0, len(params) - 2, 2):
        hidden = T.tanh(T.dot(hidden, params[k]) + params[k + 1])
    logits = T.dot(hidden, params[-2]) + params[-1]
    if system.startswith("jitgraph"):
        probs = T.nnet.softmax(logits)
        cost = T.nnet.categorical_crossentropy(probs, y).mean()
    else:
        from pytensor.tensor.special import softmax

        probs = softmax(logits, axis=-1)
        cost = -T.log(probs[T.arange(y.shape[0]), y]).mean()
    grads = grad(cost, params)
    lr = np.asarray(MLP_LR, dtype=dtype)
    updates = [(p, p - lr * g) for p, g in zip(params, grads)]

    def compile_fn() -> Callable:
        return lib.function([x, y], cost, updates=updates, mode=mode)

    return data, compile_fn


# -- JAX --------------------------------------------------------------------------------------

def logreg_jax(dtype: str) -> tuple:
    import jax
    import jax.numpy as jnp

    data, w0 = logreg_data(dtype)

    def cost_terms(w: Any, b: Any, x: Any, y: Any) -> tuple:
        u = x @ w + b  # log(p) = log_sigmoid(u), log(1 - p) = log_sigmoid(-u): stable forms
        p_1 = jax.nn.sigmoid(u)
        xent = -y * jax.nn.log_sigmoid(u) - (1 - y) * jax.nn.log_sigmoid(-u)
        return xent.mean() + 0.01 * (w ** 2).sum(), (p_1, xent)

    def train(w: Any, b: Any, x: Any, y: Any) -> tuple:
        (gw, gb), (p_1, xent) = jax.grad(cost_terms, argnums=(0, 1), has_aux=True)(w, b, x, y)
        return p_1 > 0.5, xent, w - 0.01 * gw, b - 0.01 * gb

    state = [jnp.asarray(w0), jnp.asarray(np.asarray(0.0, dtype=dtype))]
    jdata = tuple(jnp.asarray(d) for d in data)

    def compile_fn() -> Callable:
        jitted = jax.jit(train)

        def step(x: Any, y: Any) -> Any:
            pred, xent, state[0], state[1] = jitted(state[0], state[1], x, y)
            return jax.block_until_ready((pred, xent))

        return step

    return jdata, compile_fn


def mlp_jax(dtype: str) -> tuple:
    import jax
    import jax.numpy as jnp

    data, values = mlp_data(dtype)

    def loss(params: list, x: Any, y: Any) -> Any:
        hidden = x
        for k in range(0, len(params) - 2, 2):
            hidden = jnp.tanh(hidden @ params[k] + params[k + 1])
        logp = jax.nn.log_softmax(hidden @ params[-2] + params[-1], axis=-1)
        return -jnp.take_along_axis(logp, y[:, None], axis=1).mean()

    def train(params: list, x: Any, y: Any) -> tuple:
        cost, grads = jax.value_and_grad(loss)(params, x, y)
        return cost, [p - MLP_LR * g for p, g in zip(params, grads)]

    state = [[jnp.asarray(v) for v in values]]
    jdata = tuple(jnp.asarray(d) for d in data)

    def compile_fn() -> Callable:
        jitted = jax.jit(train)

        def step(x: Any, y: Any) -> Any:
            cost, state[0] = jitted(state[0], x, y)
            return jax.block_until_ready(cost)

        return step

    return jdata, compile_fn


# -- hand-written NumPy -----------------------------------------------------------------------

def logreg_numpy(dtype: str) -> tuple:
    """A lean hand-written step: one gemv each way, a few elementwise passes (the cross-entropy
    in its stable form, as jitgraph's and PyTensor's rewrites and the JAX version compute it)."""
    data, w0 = logreg_data(dtype)
    w, b = w0.copy(), np.asarray(0.0, dtype=dtype)
    n = data[0].shape[0]

    def step(x: np.ndarray, y: np.ndarray) -> tuple:
        nonlocal w, b
        u = x @ w + b
        p_1 = 1 / (1 + np.exp(-u))
        xent = np.logaddexp(0, -u) + (1 - y) * u  # -y log(p) - (1-y) log(1-p), stable
        d = (p_1 - y) / n
        w = w - 0.01 * (x.T @ d + 0.02 * w)
        b = b - 0.01 * d.sum()
        return p_1 > 0.5, xent

    return data, lambda: step


def mlp_numpy(dtype: str) -> tuple:
    data, values = mlp_data(dtype)
    params = [v.copy() for v in values]

    def step(x: np.ndarray, y: np.ndarray) -> Any:
        acts = [x]
        for k in range(0, len(params) - 2, 2):
            acts.append(np.tanh(acts[-1] @ params[k] + params[k + 1]))
        logits = acts[-1] @ params[-2] + params[-1]
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        probs = e / e.sum(axis=1, keepdims=True)
        rows = np.arange(x.shape[0])
        cost = -np.log(probs[rows, y]).mean()
        delta = probs
        delta[rows, y] -= 1
        delta /= x.shape[0]
        for k in range(len(params) - 2, -1, -2):
            gw, gb = acts[k // 2].T @ delta, delta.sum(axis=0)
            if k:
                delta = (delta @ params[k].T) * (1 - acts[k // 2] ** 2)
            params[k] -= MLP_LR * gw
            params[k + 1] -= MLP_LR * gb
        return cost

    return data, lambda: step


def build(workload: str, system: str, dtype: str) -> tuple:
    """``(data, compile_fn)`` of ``workload`` ('logreg' or 'mlp') for ``system``."""
    if system == "numpy":
        return (logreg_numpy if workload == "logreg" else mlp_numpy)(dtype)
    if system == "jax":
        return (logreg_jax if workload == "logreg" else mlp_jax)(dtype)
    return (logreg_theano if workload == "logreg" else mlp_theano)(system, dtype)
