"""Short user programs for batch normalization, neighbours, the softmax and cross-entropy
family, activations, ``h_softmax`` and a float32 network (see ``user_programs_conv.py``)."""

from __future__ import annotations

import numpy as np
from user_programs_conv import err, names


def prog_bn_train_loop(theano, out):
    T = theano.tensor
    bn = names(theano, "tensor.nnet", "bn")
    rng = np.random.RandomState(0)
    x = T.tensor4("x")
    gamma = theano.shared(np.ones((1, 3, 1, 1)), broadcastable=(True, False, True, True))
    beta = theano.shared(np.zeros((1, 3, 1, 1)), broadcastable=(True, False, True, True))
    rm = theano.shared(np.zeros((1, 3, 1, 1)), broadcastable=(True, False, True, True))
    rv = theano.shared(np.ones((1, 3, 1, 1)), broadcastable=(True, False, True, True))
    y, mean, invstd, nrm, nrv = bn.batch_normalization_train(
        x, gamma, beta, axes="spatial", running_mean=rm, running_var=rv, running_average_factor=0.3
    )
    cost = (y * T.arange(y.shape[3])).sum()
    gg, gb = T.grad(cost, [gamma, beta])
    f = theano.function(
        [x],
        [y, mean, invstd, cost],
        updates=[(rm, nrm), (rv, nrv), (gamma, gamma - 0.1 * gg), (beta, beta - 0.1 * gb)],
    )
    for i in range(3):
        r = f(rng.randn(4, 3, 5, 6) * (i + 1) + i)
    out["train"] = r
    out["rm"], out["rv"], out["gamma"], out["beta"] = (
        rm.get_value(),
        rv.get_value(),
        gamma.get_value(),
        beta.get_value(),
    )
    yt = bn.batch_normalization_test(x, gamma, beta, rm, rv, axes="spatial")
    out["test"] = theano.function([x], yt)(rng.randn(2, 3, 5, 6))
    out["bcast"] = str(y.broadcastable) + str(mean.broadcastable) + str(nrm.broadcastable)


def prog_bn_axes(theano, out):
    T = theano.tensor
    bn = names(theano, "tensor.nnet", "bn")
    rng = np.random.RandomState(1)
    x = T.tensor3("x")
    g = T.tensor3("g")
    b = T.tensor3("b")
    xv = rng.randn(4, 5, 6)
    for i, (axes, pshape) in enumerate(
        [
            ((0, 2), (1, 5, 1)),
            ("per-activation", (1, 5, 6)),
            ((1,), (4, 1, 6)),
            ((0, 1, 2), (1, 1, 1)),
        ]
    ):
        gv, bv = rng.rand(*pshape) + 0.5, rng.randn(*pshape)
        gx = T.TensorType("float64", tuple(s == 1 for s in pshape))("g")
        bx = T.TensorType("float64", tuple(s == 1 for s in pshape))("b")
        y, m, s = bn.batch_normalization_train(x, gx, bx, axes=axes, epsilon=1e-2)
        c = (y**3).sum()
        out[f"r{i}"] = theano.function([x, gx, bx], [y, m, s] + T.grad(c, [x, gx, bx]))(xv, gv, bv)
        mx = T.TensorType("float64", gx.broadcastable)("m")
        vx = T.TensorType("float64", gx.broadcastable)("v")
        yt = bn.batch_normalization_test(x, gx, bx, mx, vx, axes=axes, epsilon=1e-2)
        out[f"t{i}"] = theano.function(
            [x, gx, bx, mx, vx], [yt] + T.grad((yt**2).sum(), [x, gx, bx, mx, vx])
        )(xv, gv, bv, rng.randn(*pshape), rng.rand(*pshape) + 0.5)
    err(out, "bad_axes", lambda: bn.batch_normalization_train(x, g, b, axes="channel"))
    err(out, "bad_axes2", lambda: bn.batch_normalization_train(x, g, b, axes=(3,)))
    err(
        out,
        "spatial3",
        lambda: out.__setitem__(
            "spatial3_val",
            theano.function([x, g, b], bn.batch_normalization_train(x, g, b, axes="spatial")[0])(
                xv, np.ones((1, 5, 1)), np.zeros((1, 5, 1))
            ),
        ),
    )
    # the old function
    m = T.vector("m")
    sd = T.vector("sd")
    gvec = T.vector("gv")
    bvec = T.vector("bv")
    yy = bn.batch_normalization(x, gvec, bvec, m, sd, mode="high_mem")
    out["old"] = theano.function([x, gvec, bvec, m, sd], [yy, T.grad(yy.sum(), x)])(
        xv, rng.rand(6), rng.randn(6), rng.randn(6), rng.rand(6) + 1
    )


def prog_bn_float32(theano, out):
    T = theano.tensor
    bn = names(theano, "tensor.nnet", "bn")
    rng = np.random.RandomState(2)
    x = T.matrix("x", dtype="float32")
    g = T.row("g", dtype="float32")
    b = T.row("b", dtype="float32")
    rm = T.row("rm", dtype="float32")
    rv = T.row("rv", dtype="float32")
    res = bn.batch_normalization_train(x, g, b, running_mean=rm, running_var=rv)
    out["dtypes"] = str([r.dtype for r in res])
    f32 = lambda *s: rng.randn(*s).astype("float32")
    out["v"] = theano.function([x, g, b, rm, rv], list(res))(
        f32(5, 4), f32(1, 4), f32(1, 4), f32(1, 4), np.abs(f32(1, 4))
    )
    y = bn.batch_normalization_test(x, g, b, rm, rv, epsilon=1e-4)
    out["test_dtype"] = str(y.dtype)


def prog_neibs(theano, out):
    T = theano.tensor
    images2neibs, neibs2images = names(
        theano, "tensor.nnet.neighbours", "images2neibs", "neibs2images"
    )
    rng = np.random.RandomState(3)
    x = T.tensor4("x")
    xv = rng.randn(2, 3, 6, 7)
    for mode in ["valid", "ignore_borders", "wrap_centered", "half", "full"]:
        for i, (ns, st) in enumerate([((3, 3), None), ((2, 3), (2, 2)), ((3, 1), (1, 2))]):
            if mode == "valid" and i > 0:
                continue
            if mode == "wrap_centered" and st is not None:
                continue
            n = images2neibs(x, ns, st, mode=mode)
            outs = [n]
            if mode == "valid" or (mode == "ignore_borders" and i == 0):  # Theano's gradients
                outs.append(T.grad((n**2 * T.arange(n.shape[1])).sum(), x))
            image = xv[:, :, :6, :6] if mode == "valid" else xv
            key = f"{mode}{i}"
            err(out, key, lambda k=key, o=outs, v=image: out.__setitem__(
                f"{k}_v", theano.function([x], o)(v)))
    n = images2neibs(x, (2, 2))
    im = neibs2images(n, (2, 2), x.shape)
    out["roundtrip"] = theano.function([x], [im, T.grad((im * xv[:, :, :6, :6]).sum(), x)])(
        xv[:, :, :6, :6]
    )
    err(out, "valid_bad", lambda: theano.function([x], images2neibs(x, (4, 4)))(xv))
    nn = T.matrix("nn")
    im2 = neibs2images(nn, (2, 3), (1, 2, 4, 6), mode="ignore_borders")
    out["n2i_ib"] = theano.function([nn], im2)(rng.randn(8, 6))
    err(
        out,
        "n2i_half",
        lambda: out.__setitem__(
            "n2i_half_v",
            theano.function([nn], neibs2images(nn, (3, 3), (1, 1, 4, 4), mode="half"))(
                rng.randn(16, 9)
            ),
        ),
    )
    err(out, "bad_mode", lambda: images2neibs(x, (2, 2), mode="same"))


def prog_softmax_family(theano, out):
    T = theano.tensor
    xv_dt = theano.config.floatX
    N = T.nnet
    rng = np.random.RandomState(4)
    x = T.matrix("x")
    b = T.vector("b")
    y = T.ivector("y")
    yo = T.matrix("yo")
    xv = (rng.randn(5, 4) * 3).astype(xv_dt)
    bv = rng.randn(4).astype(xv_dt)
    yv = np.array([0, 3, 1, 1, 2], dtype="int32")
    yov = np.eye(4)[yv].astype(xv_dt)
    nll, sm, am = N.crossentropy_softmax_argmax_1hot_with_bias(x, b, y)
    out["a"] = theano.function([x, b, y], [nll, sm, am] + T.grad(nll.sum(), [x, b]))(xv, bv, yv)
    nll2, sm2 = N.crossentropy_softmax_1hot_with_bias(x, b, y)
    out["b"] = theano.function([x, b, y], [nll2, sm2])(xv, bv, yv)
    nll3, sm3 = N.crossentropy_softmax_1hot(x, y)
    out["c"] = theano.function([x, y], [nll3, sm3, T.grad(nll3.mean(), x)])(xv, yv)
    s = N.softmax_with_bias(x, b)
    out["d"] = theano.function([x, b], [s] + T.grad((s * yov).sum(), [x, b]))(xv, bv)
    ce = N.categorical_crossentropy(N.softmax(x), y)
    ce2 = N.categorical_crossentropy(N.softmax(x), yo)
    out["e"] = theano.function([x, y, yo], [ce, ce2] + T.grad(ce.sum() + ce2.mean(), [x]))(
        xv, yv, yov
    )
    out["f"] = theano.function([x], [N.logsoftmax(x), T.grad(N.logsoftmax(x)[:, 1].sum(), x)])(
        (xv * 200).astype(xv_dt)
    )
    out["g"] = theano.function([x, y], -T.log(N.softmax(x))[T.arange(y.shape[0]), y])(
        (xv * 300).astype(xv_dt), yv
    )
    out["h"] = theano.function(
        [x, y], T.grad(-T.mean(T.log(N.softmax(x))[T.arange(y.shape[0]), y]), x)
    )((xv * 300).astype(xv_dt), yv)
    p = T.ivector("p")
    out["cm"] = theano.function([y, p], N.confusion_matrix(y, p))(
        yv, np.array([0, 3, 2, 1, 2], dtype="int32")
    )
    dx = N.crossentropy_softmax_1hot_with_bias_dx(T.vector("dy"), N.softmax(x), y)
    out["dx"] = theano.function([dx.owner.inputs[0], x, y], dx)(np.ones(5, xv_dt), xv, yv)
    err(
        out,
        "bad_y",
        lambda: theano.function([x, y], nll3)(xv, np.array([0, 4, 1, 1, 2], dtype="int32")),
    )
    err(out, "bad_b", lambda: theano.function([x, b, y], nll2)(xv, bv[:3], yv))


def prog_activations(theano, out):
    T = theano.tensor
    N = T.nnet
    x = T.matrix("x")
    a = T.scalar("a")
    xv = np.linspace(-3, 3, 24).reshape(4, 6)
    xv[0, 0] = 0
    outs = [
        N.relu(x),
        N.relu(x, 0.1),
        N.relu(x, a),
        N.elu(x),
        N.elu(x, 0.5),
        N.selu(x),
        N.softsign(x),
        N.sigmoid(x),
        N.softplus(x),
        N.hard_sigmoid(x),
        N.ultra_fast_sigmoid(x),
        N.binary_crossentropy(N.sigmoid(x), (xv > 0) * 1.0),
    ]
    grads = [T.grad(o.sum(), x) for j, o in enumerate(outs) if j != 10]
    r = theano.function([x, a], outs + grads, on_unused_input="ignore", allow_input_downcast=True)(
        xv, 0.2
    )
    for i, v in enumerate(r):
        if i == 10:  # ultra_fast_sigmoid approximates
            continue
        out[f"o{i}"] = v
    out["dtypes"] = str([o.dtype for o in outs])
    xi = T.imatrix("xi")
    out["idt"] = str(
        [
            N.relu(xi).dtype,
            N.elu(xi).dtype,
            N.selu(xi).dtype,
            N.softsign(xi).dtype,
            N.relu(xi, 0.1).dtype,
        ]
    )
    out["ival"] = theano.function([xi], [N.relu(xi), N.relu(xi, 0.5)])(
        np.array([[-2, 3]], dtype="int32")
    )
    xf = T.matrix("xf", dtype="float32")
    out["fdt"] = str(
        [
            N.relu(xf, 0.1).dtype,
            N.elu(xf, 0.5).dtype,
            N.selu(xf).dtype,
            N.softsign(xf).dtype,
            N.relu(xf, a).dtype,
        ]
    )


def prog_h_softmax(theano, out):
    T = theano.tensor
    h_softmax = names(theano, "tensor.nnet", "h_softmax")
    rng = np.random.RandomState(5)
    n_in, n_out, n_cls, n_per = 6, 10, 3, 4
    x = T.matrix("x")
    t = T.ivector("t")
    W1 = theano.shared(rng.randn(n_in, n_cls))
    b1 = theano.shared(rng.randn(n_cls))
    W2 = theano.shared(rng.randn(n_cls, n_in, n_per))
    b2 = theano.shared(rng.randn(n_cls, n_per))
    full = h_softmax(x, 5, n_out, n_cls, n_per, W1, b1, W2, b2)
    part = h_softmax(x, 5, n_out, n_cls, n_per, W1, b1, W2, b2, t)
    cost = -T.log(part).mean()
    xv = rng.randn(5, n_in)
    tv = np.array([0, 9, 3, 4, 8], dtype="int32")
    out["r"] = theano.function([x, t], [full, part, cost] + T.grad(cost, [W1, b1, W2, b2]))(xv, tv)


def prog_float32_floatx(theano, out):
    T = theano.tensor
    N = T.nnet
    conv2d, bn = names(theano, "tensor.nnet", "conv2d", "bn")
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    rng = np.random.RandomState(6)
    x = T.tensor4("x")
    y = T.ivector("y")
    out["floatX"] = theano.config.floatX
    W = theano.shared(np.asarray(rng.randn(4, 1, 3, 3) * 0.3, dtype=theano.config.floatX))
    h = N.relu(conv2d(x, W, border_mode="half"), 0.01)
    h = pool_2d(h, (2, 2), ignore_border=True, mode="average_exc_pad")
    g1 = theano.shared(np.ones(4, dtype=theano.config.floatX))
    b1 = theano.shared(np.zeros(4, dtype=theano.config.floatX))
    h = bn.batch_normalization_train(
        h, g1.dimshuffle("x", 0, "x", "x"), b1.dimshuffle("x", 0, "x", "x"), axes="spatial"
    )[0]
    h = h.flatten(2)
    V = theano.shared(np.asarray(rng.randn(36, 3) * 0.1, dtype=theano.config.floatX))
    p = N.softmax(T.dot(h, V))
    cost = N.categorical_crossentropy(p, y).mean() + 0.01 * (W**2).sum()
    params = [W, g1, b1, V]
    grads = T.grad(cost, params)
    f = theano.function(
        [x, y], [cost, p], updates=[(q, q - 0.5 * g) for q, g in zip(params, grads)]
    )
    xv = rng.rand(8, 1, 6, 6).astype(theano.config.floatX)
    yv = rng.randint(0, 3, 8).astype("int32")
    costs = [f(xv, yv)[0] for i in range(5)]
    out["costs"] = np.array(costs)
    out["cost_dtype"] = str(np.asarray(costs[0]).dtype)
    out["dtypes"] = str([h.dtype, p.dtype, cost.dtype] + [g.dtype for g in grads])
    out["W"] = W.get_value()


def prog_bn_mixed(theano, out):
    T = theano.tensor
    bn = names(theano, "tensor.nnet", "bn")
    rng = np.random.RandomState(3)
    x = T.tensor4("x", dtype="float32")
    g = T.TensorType("float64", (True, False, True, True))("g")
    b = T.TensorType("float64", (True, False, True, True))("b")
    rm = T.TensorType("float64", (True, False, True, True))("rm")
    rv = T.TensorType("float64", (True, False, True, True))("rv")
    res = bn.batch_normalization_train(x, g, b, "spatial", 1e-4, 0.1, rm, rv)
    out["dt"] = str([r.dtype for r in res])
    pv = lambda: rng.rand(1, 3, 1, 1) + 0.5
    out["v"] = theano.function([x, g, b, rm, rv], list(res))(
        rng.randn(2, 3, 4, 4).astype("float32"), pv(), pv(), pv(), pv()
    )
    t = bn.batch_normalization_test(x, g, b, rm, rv, "spatial", 1e-4)
    out["t_dt"] = str(t.dtype)
    err(out, "eps", lambda: bn.batch_normalization_train(x, g, b, "spatial", 1e-6))
    err(
        out,
        "raf_nomean",
        lambda: out.__setitem__(
            "raf_len", str(len(bn.batch_normalization_train(x, g, b, "spatial", 1e-4, 0.1, rm)))
        ),
    )


def prog_neib_sym(theano, out):
    T = theano.tensor
    images2neibs = names(theano, "tensor.nnet.neighbours", "images2neibs")
    rng = np.random.RandomState(4)
    x = T.tensor4("x")
    ns = T.ivector("ns")
    xv = rng.randn(1, 2, 6, 4)
    n = images2neibs(x, ns)
    out["n"] = theano.function([x, ns], [n, T.grad((n**2).sum(), x)])(xv, np.array([3, 2], "int32"))
    xf = T.tensor4("xf", dtype="float32")
    n2 = images2neibs(xf, (2, 2), mode="wrap_centered")
    err(out, "wrap_even", lambda: theano.function([xf], n2)(xv.astype("float32")))
    n3 = images2neibs(xf, (3, 3), mode="wrap_centered")
    out["n3"] = theano.function([xf], n3)(xv.astype("float32"))
    out["dt"] = str(n3.dtype)
    xi = T.itensor4("xi")
    out["idt"] = str(images2neibs(xi, (2, 2)).dtype)
    out["iv"] = theano.function([xi], images2neibs(xi, (2, 2)))(
        np.arange(48, dtype="int32").reshape(1, 2, 6, 4)
    )


def prog_softmax_xent_rewrites(theano, out):
    T = theano.tensor
    N = T.nnet
    rng = np.random.RandomState(2)
    x = T.matrix("x")
    y = T.ivector("y")
    b = T.vector("b")
    W = T.matrix("W")
    h = T.dot(x, W) + b
    p = N.softmax(h)
    c1 = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    c2 = T.mean(N.categorical_crossentropy(p, y))
    c3 = -T.sum(T.log(p) * T.extra_ops.to_one_hot(y, 4)) / y.shape[0]
    c4 = -T.log(p[T.arange(y.shape[0]), y]).mean()
    xv = rng.randn(6, 5) * 10
    Wv = rng.randn(5, 4) * 10
    bv = rng.randn(4)
    yv = rng.randint(0, 4, 6).astype("int32")
    for i, c in enumerate([c1, c2, c3, c4]):
        out[f"c{i}"] = theano.function([x, W, b, y], [c] + T.grad(c, [W, b]))(xv, Wv, bv, yv)
    am = T.argmax(p, axis=1)
    out["am"] = theano.function([x, W, b], [am, T.max(p, axis=1)])(xv, Wv, bv)
    sm_f = N.softmax(T.matrix(dtype="float32"))
    out["f32dt"] = str(sm_f.dtype)
    nll, sm, m, am2 = N.crossentropy_softmax_max_and_argmax_1hot_with_bias(x, b, y)
    out["mx"] = theano.function([x, b, y], [nll, sm, m, am2])(xv[:, :4], bv, yv)


#: the programs, run under floatX=float64
PROGRAMS = [
    prog_bn_train_loop,
    prog_bn_axes,
    prog_bn_float32,
    prog_neibs,
    prog_softmax_family,
    prog_activations,
    prog_h_softmax,
    prog_float32_floatx,
    prog_bn_mixed,
    prog_neib_sym,
    prog_softmax_xent_rewrites,
]
#: run again under floatX=float32
FLOAT32_PROGRAMS = [prog_activations, prog_softmax_family, prog_float32_floatx]
