"""The convolutional benchmark programs, written once per system (NumPy-only at import, so the
Theano 1.0.5 oracle's interpreter can import it too).

* ``lenet``: a LeNet-5 training step, batch 500: 1x28x28 -> 20 5x5 filters -> 2x2 max pool ->
  tanh -> 50 5x5 filters -> 2x2 max pool -> tanh -> 500 tanh -> 10 softmax, mean negative
  log-likelihood, SGD (learning rate 0.1) on every parameter; the step returns the cost.
* ``conv``: a 64 -> 64 channel 3x3 convolution ('half' border) of 64 images of 32x32, forward and
  backward: the gradients of ``sum(conv(x, W) * g)`` with respect to ``x`` and ``W``.

Every builder returns ``(data, compile_fn)``; ``compile_fn()`` compiles (``function(...)`` /
``jax.jit``) and returns ``step(*data)``. Same initial values for every system.

PyTensor 3 has neither a convolution op nor pooling (``theano.tensor.nnet`` and ``signal.pool``
were removed), so its programs are written as a PyTensor 3 user has to: the convolution as a
sum over kernel taps of shifted slices (stacked, then one ``tensordot``), max pooling as a
reshape and a ``max``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

BATCH = 500
LR = 0.1
CONV = dict(batch=64, channels=64, size=32, k=3)


def lenet_data(dtype: str) -> tuple[tuple, list[np.ndarray]]:
    rng = np.random.RandomState(0)

    def uniform(shape: tuple, fan_in: int) -> np.ndarray:
        bound = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, shape).astype(dtype)

    params = [uniform((20, 1, 5, 5), 25), np.zeros(20, dtype), uniform((50, 20, 5, 5), 500),
              np.zeros(50, dtype), uniform((800, 500), 800), np.zeros(500, dtype),
              uniform((500, 10), 500), np.zeros(10, dtype)]
    x = rng.uniform(0, 1, (BATCH, 784)).astype(dtype)
    y = rng.randint(0, 10, BATCH).astype("int32")
    return (x, y), params


def conv_data(dtype: str) -> tuple:
    rng = np.random.RandomState(1)
    b, c, s, k = CONV["batch"], CONV["channels"], CONV["size"], CONV["k"]
    return (rng.uniform(-1, 1, (b, c, s, s)).astype(dtype),
            rng.uniform(-0.1, 0.1, (c, c, k, k)).astype(dtype),
            rng.uniform(-1, 1, (b, c, s, s)).astype(dtype))


# -- jitgraph and Theano 1.0.5 (the same API) -------------------------------------------------

def _theano_api(system: str) -> Any:
    if system.startswith("jitgraph"):
        import jitgraph

        return jitgraph
    import theano

    return theano


def _pool_module(lib: Any) -> Any:
    import importlib

    return importlib.import_module(f"{lib.__name__}.tensor.signal.pool")


def lenet_theano(system: str, dtype: str) -> tuple:
    lib = _theano_api(system)
    T = lib.tensor
    pool = _pool_module(lib)
    data, values = lenet_data(dtype)
    params = [lib.shared(v) for v in values]
    w1, b1, w2, b2, w3, b3, w4, b4 = params
    x, y = T.matrix("x", dtype=dtype), T.ivector("y")
    h = x.reshape((BATCH, 1, 28, 28))
    for w, b in ((w1, b1), (w2, b2)):
        conv = T.nnet.conv2d(h, w)
        h = T.tanh(pool.pool_2d(conv, (2, 2), ignore_border=True) + b.dimshuffle("x", 0, "x", "x"))
    h = T.tanh(T.dot(h.flatten(2), w3) + b3)
    p = T.nnet.softmax(T.dot(h, w4) + b4)
    cost = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    grads = T.grad(cost, params)
    lr = np.asarray(LR, dtype=dtype)
    updates = [(q, q - lr * g) for q, g in zip(params, grads)]
    return data, lambda: lib.function([x, y], cost, updates=updates)


def conv_theano(system: str, dtype: str) -> tuple:
    lib = _theano_api(system)
    T = lib.tensor
    x, w, g = (T.TensorType(dtype, (False,) * 4)(n) for n in "xwg")
    out = T.nnet.conv2d(x, w, border_mode="half")
    gx, gw = T.grad((out * g).sum(), [x, w])
    return conv_data(dtype), lambda: lib.function([x, w, g], [gx, gw])


# -- PyTensor 3 (C backend) ------------------------------------------------------------------

def _pytensor() -> tuple[Any, Any]:
    import warnings

    warnings.filterwarnings("ignore", message=".*BLAS.*")
    import pytensor
    import pytensor.tensor as pt
    from pytensor.compile.mode import get_mode

    return pytensor, pt, get_mode("CVM")


def _pt_conv(pt: Any, x: Any, w: Any, shape: tuple, k: int, pad: int = 0) -> Any:
    """True convolution of ``x`` (shape ``(n, c, h, w)``) by ``w`` ``(m, c, k, k)``."""
    n, c, h, wd = shape
    if pad:
        padded = pt.zeros((n, c, h + 2 * pad, wd + 2 * pad), dtype=x.dtype)
        x = pt.set_subtensor(padded[:, :, pad:pad + h, pad:pad + wd], x)
        h, wd = h + 2 * pad, wd + 2 * pad
    ho, wo = h - k + 1, wd - k + 1
    taps = [x[:, :, i:i + ho, j:j + wo] for i in range(k) for j in range(k)]
    patches = pt.stack(taps, axis=2).reshape((n, c * k * k, ho * wo))
    m = w.shape[0]
    wmat = w[:, :, ::-1, ::-1].reshape((m, c * k * k))
    out = pt.tensordot(wmat, patches, axes=[[1], [1]])  # (m, n, ho*wo)
    return out.dimshuffle(1, 0, 2).reshape((n, m, ho, wo))


def _pt_pool(x: Any, shape: tuple) -> Any:
    n, c, h, w = shape
    return x.reshape((n, c, h // 2, 2, w // 2, 2)).max(axis=(3, 5))


def lenet_pytensor(system: str, dtype: str) -> tuple:
    pytensor, pt, mode = _pytensor()
    data, values = lenet_data(dtype)
    params = [pytensor.shared(v) for v in values]
    w1, b1, w2, b2, w3, b3, w4, b4 = params
    x, y = pt.matrix("x", dtype=dtype), pt.ivector("y")
    h = x.reshape((BATCH, 1, 28, 28))
    h = pt.tanh(_pt_pool(_pt_conv(pt, h, w1, (BATCH, 1, 28, 28), 5), (BATCH, 20, 24, 24))
                + b1.dimshuffle("x", 0, "x", "x"))
    h = pt.tanh(_pt_pool(_pt_conv(pt, h, w2, (BATCH, 20, 12, 12), 5), (BATCH, 50, 8, 8))
                + b2.dimshuffle("x", 0, "x", "x"))
    h = pt.tanh(pt.dot(h.flatten(2), w3) + b3)
    logp = pt.special.log_softmax(pt.dot(h, w4) + b4, axis=-1)
    cost = -pt.mean(logp[pt.arange(y.shape[0]), y])
    grads = pytensor.grad(cost, params)
    lr = np.asarray(LR, dtype=dtype)
    updates = [(q, q - lr * g) for q, g in zip(params, grads)]
    return data, lambda: pytensor.function([x, y], cost, updates=updates, mode=mode)


def conv_pytensor(system: str, dtype: str) -> tuple:
    pytensor, pt, mode = _pytensor()
    b, c, s, k = CONV["batch"], CONV["channels"], CONV["size"], CONV["k"]
    x, w, g = (pt.tensor(n, dtype=dtype, shape=(None,) * 4) for n in "xwg")
    out = _pt_conv(pt, x, w, (b, c, s, s), k, pad=k // 2)
    gx, gw = pytensor.grad((out * g).sum(), [x, w])
    return conv_data(dtype), lambda: pytensor.function([x, w, g], [gx, gw], mode=mode)


# -- JAX --------------------------------------------------------------------------------------

def _jax_conv(lax: Any, x: Any, w: Any, padding: str) -> Any:
    return lax.conv_general_dilated(x, w[:, :, ::-1, ::-1], (1, 1), padding,
                                    dimension_numbers=("NCHW", "OIHW", "NCHW"))


def lenet_jax(system: str, dtype: str) -> tuple:
    import jax
    import jax.numpy as jnp
    from jax import lax

    (x, y), values = lenet_data(dtype)
    state = {"params": [jnp.asarray(v) for v in values]}

    def pool(h: Any) -> Any:
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss(ps: list, xb: Any, yb: Any) -> Any:
        w1, b1, w2, b2, w3, b3, w4, b4 = ps
        h = xb.reshape(BATCH, 1, 28, 28)
        h = jnp.tanh(pool(_jax_conv(lax, h, w1, "VALID")) + b1[None, :, None, None])
        h = jnp.tanh(pool(_jax_conv(lax, h, w2, "VALID")) + b2[None, :, None, None])
        h = jnp.tanh(h.reshape(BATCH, -1) @ w3 + b3)
        logp = jax.nn.log_softmax(h @ w4 + b4)
        return -jnp.mean(logp[jnp.arange(BATCH), yb])

    def compile_fn() -> Callable:
        @jax.jit
        def update(ps: list, xb: Any, yb: Any) -> tuple:
            cost, grads = jax.value_and_grad(loss)(ps, xb, yb)
            return cost, [p - LR * g for p, g in zip(ps, grads)]

        def step(xb: Any, yb: Any) -> Any:
            cost, state["params"] = update(state["params"], xb, yb)
            return cost.block_until_ready()

        return step

    return (jnp.asarray(x), jnp.asarray(y)), compile_fn


def conv_jax(system: str, dtype: str) -> tuple:
    import jax
    import jax.numpy as jnp
    from jax import lax

    data = tuple(jnp.asarray(a) for a in conv_data(dtype))

    def compile_fn() -> Callable:
        def cost(x: Any, w: Any, g: Any) -> Any:
            return (_jax_conv(lax, x, w, "SAME") * g).sum()

        grads = jax.jit(jax.grad(cost, argnums=(0, 1)))

        def step(x: Any, w: Any, g: Any) -> Any:
            return [r.block_until_ready() for r in grads(x, w, g)]

        return step

    return data, compile_fn


BUILDERS = {("lenet", "jitgraph"): lenet_theano, ("lenet", "theano"): lenet_theano,
            ("lenet", "pytensor-c"): lenet_pytensor, ("lenet", "jax"): lenet_jax,
            ("conv", "jitgraph"): conv_theano, ("conv", "theano"): conv_theano,
            ("conv", "pytensor-c"): conv_pytensor, ("conv", "jax"): conv_jax}


def build(workload: str, system: str, dtype: str) -> tuple:
    base = "jitgraph" if system.startswith("jitgraph") else system
    return BUILDERS[(workload, base)](system, dtype)
