"""Short programs written the way Theano users write them, for the convolution and pooling
functions (``conv2d`` with every option together, ``conv2d_transpose`` in a decoder, ``conv3d``
nets, the legacy ``nnet.conv``/``signal.conv`` interfaces, pooling in every mode with gradients
of gradients, ...). Each ``prog_*(theano, out)`` fills ``out`` with arrays and strings (dtypes,
shapes, exception classes).

``data/record_user_programs_oracle.py`` runs them under Theano 1.0.5 (with ``theano`` the real
one) and ``test_user_programs.py`` under jitgraph, comparing the two. NumPy only, as the
oracle's environment has no jitgraph. Where jitgraph deliberately does more than Theano
(gradients Theano lacks, symbolic shapes it refuses), the programs leave that part out; the
unit tests cover it.
"""

from __future__ import annotations

import builtins
import importlib

import numpy as np


def names(theano, path, *attrs):
    """``from theano.<path> import attrs`` for whichever module ``theano`` is."""
    module = importlib.import_module(f"{theano.__name__}.{path}")
    found = []
    for attr in attrs:
        try:
            found.append(getattr(module, attr))
        except AttributeError:
            found.append(importlib.import_module(f"{module.__name__}.{attr}"))
    return found[0] if len(found) == 1 else found


def err(out, key, thunk):
    """Run ``thunk``; record the built-in exception classes of what it raised (most derived
    first; Theano's and jitgraph's messages differ, their classes must not), or 'no error'."""
    try:
        thunk()
        out[key] = "no error"
    except Exception as exc:  # noqa: BLE001 - the class is the result
        classes = [
            c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c
        ]
        out[key] = "raises " + " ".join(classes)
        out[f"{key}_message"] = str(exc).split("\n")[0]


def prog_conv_combo(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    rng = np.random.RandomState(0)
    x = T.tensor4("x")
    w = T.tensor4("w")
    xv = rng.randn(3, 4, 11, 10)
    wv = rng.randn(6, 2, 3, 3)
    for i, (bm, ss, dil) in enumerate(
        [
            ("half", (2, 2), (2, 1)),
            ("full", (1, 2), (1, 2)),
            ((2, 1), (3, 2), (2, 2)),
            (1, (2, 1), (1, 1)),
            ("valid", (2, 3), (2, 2)),
        ]
    ):
        y = conv2d(
            x,
            w,
            input_shape=(None, 4, None, 10),
            filter_shape=(6, 2, None, 3),
            border_mode=bm,
            subsample=ss,
            filter_dilation=dil,
            num_groups=2,
        )
        cost = (y**2).sum()
        gx, gw = T.grad(cost, [x, w])
        f = theano.function([x, w], [y, gx, gw])
        r = f(xv, wv)
        out[f"y{i}"], out[f"gx{i}"], out[f"gw{i}"] = r
        out[f"shape{i}"] = str(f(xv[:1], wv)[0].shape)


def prog_conv_bad_args(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    x = T.tensor4("x")
    w = T.tensor4("w")
    err(out, "bm", lambda: conv2d(x, w, border_mode="same"))
    err(out, "neg_pad", lambda: conv2d(x, w, border_mode=-1))
    err(
        out,
        "groups_shape",
        lambda: conv2d(x, w, input_shape=(2, 3, 5, 5), filter_shape=(4, 3, 3, 3), num_groups=2),
    )
    err(out, "x3d", lambda: conv2d(T.tensor3(), w))
    err(out, "subsample_len", lambda: conv2d(x, w, subsample=(1, 1, 1)))
    f = theano.function([x, w], conv2d(x, w))
    err(out, "run_channel_mismatch", lambda: f(np.zeros((1, 3, 5, 5)), np.zeros((2, 2, 3, 3))))
    err(out, "run_too_small", lambda: f(np.zeros((1, 3, 2, 2)), np.zeros((2, 3, 3, 3))))
    g = theano.function([x, w], conv2d(x, w, input_shape=(1, 3, 5, 5)))
    err(out, "run_wrong_hint", lambda: g(np.zeros((2, 3, 5, 5)), np.zeros((2, 3, 3, 3))))


def prog_conv_transpose_decoder(theano, out):
    T = theano.tensor
    conv2d_transpose, relu, sigmoid = names(
        theano, "tensor.nnet", "conv2d_transpose", "relu", "sigmoid"
    )
    rng = np.random.RandomState(1)
    z = T.tensor4("z")
    w1 = theano.shared(rng.randn(8, 4, 3, 3) * 0.3, name="w1")
    w2 = theano.shared(rng.randn(4, 1, 4, 4) * 0.3, name="w2")
    h = relu(
        conv2d_transpose(
            z, w1, output_shape=(2, 4, 9, 9), border_mode="valid", input_dilation=(2, 2)
        )
    )
    y = sigmoid(
        conv2d_transpose(
            h, w2, output_shape=(2, 1, 18, 18), border_mode=(1, 1), input_dilation=(2, 2)
        )
    )
    target = T.tensor4("t")
    cost = T.nnet.binary_crossentropy(y, target).mean()
    g1, g2 = T.grad(cost, [w1, w2])
    f = theano.function(
        [z, target], [y, cost, g1, g2], updates=[(w1, w1 - 0.1 * g1), (w2, w2 - 0.1 * g2)]
    )
    zv = rng.randn(2, 8, 4, 4)
    tv = rng.rand(2, 1, 18, 18)
    for i in range(3):
        r = f(zv, tv)
    out["y"], out["cost"], out["g1"], out["g2"] = r
    out["w1"] = w1.get_value()


def prog_conv3d_net(theano, out):
    T = theano.tensor
    conv3d = names(theano, "tensor.nnet", "conv3d")
    pool_3d = names(theano, "tensor.signal.pool", "pool_3d")
    rng = np.random.RandomState(2)
    x = T.TensorType("float64", (False,) * 5)("x")
    w = theano.shared(rng.randn(3, 2, 2, 3, 3) * 0.2)
    b = theano.shared(np.zeros(3))
    h = T.tanh(
        conv3d(x, w, border_mode="half", subsample=(1, 2, 1), filter_dilation=(2, 1, 1))
        + b.dimshuffle("x", 0, "x", "x", "x")
    )
    p = pool_3d(h, (2, 2, 2), ignore_border=False, mode="average_exc_pad")
    cost = p.sum() ** 2 / 100
    gw, gb = T.grad(cost, [w, b])
    f = theano.function([x], [h, p, cost, gw, gb], updates=[(w, w - 0.01 * gw), (b, b - 0.01 * gb)])
    xv = rng.randn(2, 2, 5, 6, 7)
    for i in range(2):
        r = f(xv)
    for k, v in zip(["h", "p", "cost", "gw", "gb"], r):
        out[k] = v
    y = conv3d(x, w, border_mode="full", filter_flip=False)
    out["full"] = theano.function([x], y)(xv)


def prog_legacy_conv(theano, out):
    T = theano.tensor
    conv = names(theano, "tensor.nnet", "conv")
    sconv = names(theano, "tensor.signal", "conv")
    rng = np.random.RandomState(3)
    x = T.tensor4("x")
    w = T.tensor4("w")
    xv = rng.randn(2, 3, 8, 7)
    wv = rng.randn(4, 3, 3, 2)
    for i, (bm, ss) in enumerate([("valid", (1, 1)), ("full", (1, 1))]):
        y = conv.conv2d(
            x, w, image_shape=(2, 3, 8, 7), filter_shape=(4, 3, 3, 2), border_mode=bm, subsample=ss
        )
        gx, gw = T.grad(y.sum() * 2 + (y**2).sum(), [x, w])
        r = theano.function([x, w], [y, gx, gw])(xv, wv)
        out[f"y{i}"], out[f"gx{i}"], out[f"gw{i}"] = r
    for i, (bm, ss) in enumerate([("valid", (2, 2)), ("full", (2, 3))]):
        y = conv.conv2d(
            x, w, image_shape=(2, 3, 8, 7), filter_shape=(4, 3, 3, 2), border_mode=bm, subsample=ss
        )
        out[f"sy{i}"] = theano.function([x, w], y)(xv, wv)
    y = conv.conv2d(x, w)
    out["nohint"] = theano.function([x, w], y)(xv, wv)
    # signal.conv
    m = T.matrix("m")
    k = T.matrix("k")
    k3 = T.tensor3("k3")
    m3 = T.tensor3("m3")
    mv = rng.randn(6, 7)
    kv = rng.randn(3, 2)
    k3v = rng.randn(2, 3, 2)
    m3v = rng.randn(3, 6, 7)
    out["s22"] = theano.function([m, k], sconv.conv2d(m, k))(mv, kv)
    out["s22full"] = theano.function([m, k], sconv.conv2d(m, k, border_mode="full"))(mv, kv)
    out["s23"] = theano.function([m, k3], sconv.conv2d(m, k3))(mv, k3v)
    out["s32"] = theano.function([m3, k], sconv.conv2d(m3, k, image_shape=(3, 6, 7)))(m3v, kv)
    out["s33"] = theano.function([m3, k3], sconv.conv2d(m3, k3, subsample=(2, 1)))(m3v, k3v)
    out["s33grad"] = theano.function([m3, k3], T.grad(sconv.conv2d(m3, k3).sum(), k3))(m3v, k3v)
    err(out, "legacy_bad_bm", lambda: conv.conv2d(x, w, border_mode="half"))
    # the legacy op refuses images and filters of other shapes than its hints
    hinted = theano.function(
        [x, w], conv.conv2d(x, w, image_shape=(2, 3, 8, 7), filter_shape=(4, 3, 3, 2))
    )
    out["hinted"] = hinted(xv, wv)
    err(out, "legacy_rows", lambda: hinted(rng.randn(2, 3, 9, 7), wv))
    err(out, "legacy_batch", lambda: hinted(xv[:1], wv))
    err(out, "legacy_nkern", lambda: hinted(xv, rng.randn(5, 3, 3, 2)))


def prog_separable(theano, out):
    T = theano.tensor
    separable_conv2d = names(theano, "tensor.nnet", "separable_conv2d")
    rng = np.random.RandomState(4)
    x = T.tensor4("x")
    dw = T.tensor4("dw")
    pw = T.tensor4("pw")
    xv = rng.randn(2, 3, 7, 7)
    dwv = rng.randn(6, 1, 3, 3)
    pwv = rng.randn(5, 6, 1, 1)
    y = separable_conv2d(
        x,
        dw,
        pw,
        3,
        input_shape=(2, 3, 7, 7),
        depthwise_filter_shape=(6, 1, 3, 3),
        pointwise_filter_shape=(5, 6, 1, 1),
        border_mode="half",
        subsample=(2, 2),
    )
    r = theano.function([x, dw, pw], [y] + T.grad((y**2).sum(), [x, dw, pw]))(xv, dwv, pwv)
    for k, v in zip(["y", "gx", "gdw", "gpw"], r):
        out[k] = v


def prog_conv_float32(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    rng = np.random.RandomState(5)
    x = T.tensor4("x", dtype="float32")
    w = T.tensor4("w", dtype="float32")
    y = conv2d(x, w, border_mode="half", subsample=(2, 2))
    r = theano.function([x, w], [y] + T.grad(y.sum(), [x, w]))(
        rng.randn(2, 3, 7, 7).astype("float32"), rng.randn(4, 3, 3, 3).astype("float32")
    )
    for k, v in zip(["y", "gx", "gw"], r):
        out[k] = v
    # mixed dtypes
    w64 = T.tensor4("w64")
    y = conv2d(x, w64)
    out["mixed_dtype"] = str(y.dtype)
    xi = T.itensor4("xi")
    err(out, "int_conv", lambda: out.__setitem__("int_dtype", str(conv2d(xi, w).dtype)))


def prog_grad_ops(theano, out):
    T = theano.tensor
    conv2d_grad_wrt_inputs, conv2d_grad_wrt_weights = names(
        theano, "tensor.nnet.abstract_conv", "conv2d_grad_wrt_inputs", "conv2d_grad_wrt_weights"
    )
    rng = np.random.RandomState(6)
    g = T.tensor4("g")
    w = T.tensor4("w")
    x = T.tensor4("x")
    gv = rng.randn(2, 4, 4, 3)
    wv = rng.randn(4, 3, 3, 3)
    xv = rng.randn(2, 3, 9, 7)
    gi = conv2d_grad_wrt_inputs(
        g,
        w,
        input_shape=(2, 3, 9, 7),
        filter_shape=(4, 3, 3, 3),
        border_mode="valid",
        subsample=(2, 2),
    )
    gw = conv2d_grad_wrt_weights(
        x,
        g,
        filter_shape=(4, 3, 3, 3),
        input_shape=(2, 3, 9, 7),
        border_mode="valid",
        subsample=(2, 2),
    )
    r = theano.function([g, w, x], [gi, gw])(gv, wv, xv)
    out["gi"], out["gw"] = r
    gi2 = conv2d_grad_wrt_inputs(
        g,
        w,
        input_shape=(None, None, 9, 7),
        border_mode=(1, 1),
        subsample=(3, 2),
        filter_dilation=(1, 2),
    )
    out["gi2"] = theano.function([g, w], gi2)(rng.randn(2, 4, 3, 3), wv)


def prog_bcast_patterns(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    x = T.TensorType("float64", (False, True, False, False))("x")
    w = T.TensorType("float64", (True, True, False, False))("w")
    y = conv2d(x, w)
    out["bc"] = str(y.broadcastable)
    out["bc_pool"] = str(pool_2d(y, (2, 2), ignore_border=True).broadcastable)
    x1 = T.TensorType("float64", (True, False, False, False))("x1")
    out["bc2"] = str(conv2d(x1, T.tensor4()).broadcastable)
    out["bc3"] = str(
        conv2d(x1, T.tensor4(), input_shape=(1, 3, 5, 5), filter_shape=(1, 3, 3, 3)).broadcastable
    )
    rng = np.random.RandomState(0)
    b = T.vector("b")
    z = T.nnet.sigmoid(y + b.dimshuffle("x", 0, "x", "x"))
    out["val"] = theano.function([x, w, b], [z, T.grad(z.sum(), w)])(
        rng.randn(2, 1, 5, 5), rng.randn(1, 1, 2, 2), rng.randn(1)
    )
    err(
        out,
        "bad_bc",
        lambda: theano.function([x, w], y)(rng.randn(2, 2, 5, 5), rng.randn(1, 1, 2, 2)),
    )


def prog_rop_conv(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    rng = np.random.RandomState(1)
    x = T.tensor4("x")
    w = T.tensor4("w")
    vx = T.tensor4("vx")
    vw = T.tensor4("vw")
    y = pool_2d(
        T.tanh(conv2d(x, w, border_mode="full", subsample=(2, 1))),
        (2, 2),
        ignore_border=True,
        mode="sum",
    )
    r = T.Rop(y, [x, w], [vx, vw])
    xv, wv = rng.randn(2, 3, 6, 6), rng.randn(4, 3, 3, 3)
    out["rop"] = theano.function([x, w, vx, vw], r)(
        xv, wv, rng.randn(*xv.shape), rng.randn(*wv.shape)
    )
    l = T.Lop(y, [x, w], T.ones_like(y))
    out["lop"] = theano.function([x, w], l)(xv, wv)
    # Hessian-vector product on conv weights
    cost = (y**2).sum()
    gw = T.grad(cost, w)
    hv = T.grad((gw * vw).sum(), w)
    out["hv"] = theano.function([x, w, vw], hv)(xv, wv, rng.randn(*wv.shape))


def prog_lenet_small(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    pool = names(theano, "tensor.signal", "pool")
    rng = np.random.RandomState(23455)
    data_x = theano.shared(rng.rand(40, 1 * 12 * 12), borrow=True)
    data_y = theano.shared(rng.randint(0, 5, 40).astype("int32"), borrow=True)
    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    bs = 10
    layer0_input = x.reshape((bs, 1, 12, 12))
    W0 = theano.shared(rng.uniform(-0.3, 0.3, (4, 1, 3, 3)), borrow=True)
    b0 = theano.shared(np.zeros(4), borrow=True)
    c0 = conv2d(layer0_input, W0, filter_shape=(4, 1, 3, 3), input_shape=(bs, 1, 12, 12))
    p0 = pool.pool_2d(c0, ws=(2, 2), ignore_border=True)
    h0 = T.tanh(p0 + b0.dimshuffle("x", 0, "x", "x"))
    W1 = theano.shared(rng.uniform(-0.3, 0.3, (6, 4, 2, 2)), borrow=True)
    c1 = conv2d(h0, W1, border_mode="half")
    p1 = pool.pool_2d(c1, ws=(2, 2), ignore_border=False, mode="average_exc_pad")
    h1 = T.nnet.relu(p1).flatten(2)
    Wo = theano.shared(np.zeros((6 * 3 * 3, 5)), borrow=True)
    bo = theano.shared(np.zeros(5), borrow=True)
    p_y = T.nnet.softmax(T.dot(h1, Wo) + bo)
    nll = -T.mean(T.log(p_y)[T.arange(y.shape[0]), y])
    errors = T.mean(T.neq(T.argmax(p_y, axis=1), y))
    params = [W0, b0, W1, Wo, bo]
    grads = T.grad(nll, params)
    train = theano.function(
        [index],
        nll,
        updates=[(p, p - 0.1 * g) for p, g in zip(params, grads)],
        givens={x: data_x[index * bs : (index + 1) * bs], y: data_y[index * bs : (index + 1) * bs]},
    )
    test = theano.function(
        [index],
        errors,
        givens={x: data_x[index * bs : (index + 1) * bs], y: data_y[index * bs : (index + 1) * bs]},
    )
    costs = []
    for epoch in range(3):
        for i in range(4):
            costs.append(train(i))
    out["costs"] = np.array(costs)
    out["err"] = np.array([test(i) for i in range(4)])
    out["W0"] = W0.get_value()
    out["W1"] = W1.get_value()


def prog_modes(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    bn = names(theano, "tensor.nnet", "bn")
    rng = np.random.RandomState(3)
    x = T.tensor4("x")
    w = T.tensor4("w")
    y = pool_2d(conv2d(x, w, border_mode=1), (2, 2), ignore_border=True)
    g = T.vector("g")
    z = bn.batch_normalization_train(
        y,
        g.dimshuffle("x", 0, "x", "x"),
        T.zeros_like(g).dimshuffle("x", 0, "x", "x"),
        axes="spatial",
    )[0]
    outs = [y, z] + T.grad((z**2).sum() + z.sum(), [x, w, g])
    xv, wv, gv = rng.randn(2, 3, 6, 6), rng.randn(4, 3, 3, 3), rng.rand(4) + 0.5
    NanGuardMode = names(theano, "compile.nanguardmode", "NanGuardMode")
    out["nanguard"] = theano.function(
        [x, w, g], outs, mode=NanGuardMode(nan_is_error=True, inf_is_error=True, big_is_error=False)
    )(xv, wv, gv)
    f = theano.function(
        [x, w, g], outs, mode=NanGuardMode(nan_is_error=True, inf_is_error=True, big_is_error=False)
    )
    xv2 = xv.copy()
    xv2[0, 0, 0, 0] = np.nan
    err(out, "nan", lambda: f(xv2, wv, gv))


def prog_conv_shapes_api(theano, out):
    T = theano.tensor
    (
        get_conv_output_shape,
        get_conv_shape_1axis,
        get_conv_gradweights_shape,
        get_conv_gradinputs_shape,
        check_conv_gradinputs_shape,
        assert_conv_shape,
    ) = names(
        theano,
        "tensor.nnet.abstract_conv",
        "get_conv_output_shape",
        "get_conv_shape_1axis",
        "get_conv_gradweights_shape",
        "get_conv_gradinputs_shape",
        "check_conv_gradinputs_shape",
        "assert_conv_shape",
    )
    out["a"] = str(get_conv_output_shape((2, 3, 10, 9), (4, 3, 3, 2), "half", (2, 2), (2, 1)))
    out["b"] = str(get_conv_output_shape((None, 3, 10, None), (4, 3, 3, 2), (1, 2), (1, 1)))
    out["c"] = str(get_conv_shape_1axis(10, 3, "full", 3, 2))
    out["d"] = str(get_conv_gradweights_shape((2, 3, 10, 9), (2, 4, 5, 5), "valid", (2, 2)))
    out["e"] = str(get_conv_gradinputs_shape((4, 3, 3, 2), (2, 4, 5, 5), "half", (2, 2)))
    out["f"] = str(
        check_conv_gradinputs_shape((2, 3, 10, 9), (4, 3, 3, 2), (2, 4, 5, 5), "half", (2, 2))
    )
    out["g"] = str(
        check_conv_gradinputs_shape((2, 3, 11, 9), (4, 3, 3, 2), (2, 4, 5, 5), "valid", (2, 2))
    )
    out["h"] = str(get_conv_shape_1axis(10, None, "valid", 1))
    x = T.tensor4()
    s = assert_conv_shape(x.shape)
    out["i"] = theano.function([x], s)(np.zeros((1, 2, 3, 4)))


def prog_unshared_flip(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    rng = np.random.RandomState(4)
    x = T.tensor4("x")
    w6 = T.TensorType("float64", (False,) * 6)("w6")
    xv = rng.randn(2, 2, 6, 5)
    wv = rng.randn(3, 3, 3, 2, 3, 3)
    y = conv2d(x, w6, unshared=True, filter_flip=False, border_mode=(1, 0), subsample=(2, 1))
    out["u"] = theano.function([x, w6], [y] + T.grad((y**2).sum(), [x, w6]))(
        xv, wv[:, :, :, :, :, :]
    )
    err(out, "u_bad", lambda: conv2d(x, T.tensor4(), unshared=True))
    err(out, "u_run", lambda: theano.function([x, w6], y)(xv, rng.randn(3, 4, 3, 2, 3, 3)))


def prog_views(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    rng = np.random.RandomState(0)
    xh = T.tensor4("xh")  # NHWC
    w = T.tensor4("w")
    x = xh.dimshuffle(0, 3, 1, 2)
    y = conv2d(x, w[:, :, ::-1, ::-1], filter_flip=False, border_mode="half")
    y2 = conv2d(x[:, :, ::2, ::-1], w.dimshuffle(0, 1, 3, 2), subsample=(1, 2))
    p = pool_2d(y.dimshuffle(0, 1, 3, 2)[:, ::-1], (2, 3), ignore_border=False, stride=(1, 2))
    outs = [y, y2, p] + T.grad((y**2).sum() + (y2 * 3).sum() + (p**3).sum(), [xh, w])
    xv = rng.randn(2, 9, 8, 3)
    wv = rng.randn(4, 3, 3, 3)
    out["r"] = theano.function([xh, w], outs)(xv, wv)
    # non-contiguous numpy input arrays
    f = theano.function([xh, w], outs)
    out["r2"] = f(np.asfortranarray(xv), wv[:, :, ::-1, :])


def prog_shapes_sweep(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    rng = np.random.RandomState(1)
    x = T.tensor4("x")
    w = T.tensor4("w")
    cases = [
        ((3, 1, 10, 10), (5, 1, 5, 5), "valid", (1, 1), 1),
        ((2, 16, 6, 6), (8, 16, 1, 1), "valid", (1, 1), 1),
        ((2, 8, 7, 7), (8, 1, 3, 3), "half", (1, 1), 8),
        ((2, 6, 9, 9), (4, 6, 2, 2), "valid", (3, 3), 1),
        ((1, 3, 4, 4), (2, 3, 4, 4), "full", (1, 1), 1),
        ((2, 4, 12, 5), (6, 2, 5, 1), (2, 0), (2, 1), 2),
        ((1, 2, 5, 5), (3, 2, 5, 5), "valid", (1, 1), 1),
        ((4, 20, 12, 12), (50, 20, 5, 5), "valid", (1, 1), 1),
        ((2, 3, 1, 9), (2, 3, 1, 3), "valid", (1, 1), 1),
    ]
    for i, (xs, ws, bm, ss, g) in enumerate(cases):
        y = conv2d(x, w, border_mode=bm, subsample=ss, num_groups=g)
        gx, gw = T.grad((y * y.sum(axis=1, keepdims=True)).sum(), [x, w])
        out[f"c{i}"] = theano.function([x, w], [y, gx, gw])(rng.randn(*xs), rng.randn(*ws))


def prog_conv3d2d(theano, out):
    T = theano.tensor
    conv3d2d = names(theano, "tensor.nnet", "conv3d2d")
    rng = np.random.RandomState(0)
    s = T.TensorType("float64", (False,) * 5)("s")
    f = T.TensorType("float64", (False,) * 5)("f")
    sv = rng.randn(2, 5, 3, 6, 6)
    fv = rng.randn(4, 3, 3, 2, 2)
    for i, bm in enumerate(["valid", "full"]):
        y = conv3d2d.conv3d(s, f, signals_shape=sv.shape, filters_shape=fv.shape, border_mode=bm)
        out[f"y{i}"] = theano.function([s, f], [y] + T.grad((y**2).sum(), [s, f]))(sv, fv)


def prog_const_filters(theano, out):
    T = theano.tensor
    conv2d = names(theano, "tensor.nnet", "conv2d")
    rng = np.random.RandomState(1)
    x = T.tensor4("x")
    sobel = np.array([[[[1, 0, -1], [2, 0, -2], [1, 0, -1]]]], dtype="float64")
    y = conv2d(x, sobel, border_mode="half")
    y2 = conv2d(x, sobel.transpose(0, 1, 3, 2).astype("int32"), border_mode="full")
    out["dt2"] = str(y2.dtype)
    xv = rng.randn(2, 1, 5, 6)
    out["r"] = theano.function([x], [y, y2, T.grad((y**2).sum(), x)])(xv)
    out["bc"] = str(y.broadcastable)
    z = conv2d(np.ones((1, 1, 4, 4)), T.tensor4("w"))
    out["z"] = str(z.broadcastable)


#: the programs, run under floatX=float64
PROGRAMS = [
    prog_conv_combo,
    prog_conv_bad_args,
    prog_conv_transpose_decoder,
    prog_conv3d_net,
    prog_legacy_conv,
    prog_separable,
    prog_conv_float32,
    prog_grad_ops,
    prog_bcast_patterns,
    prog_rop_conv,
    prog_lenet_small,
    prog_modes,
    prog_conv_shapes_api,
    prog_unshared_flip,
    prog_views,
    prog_shapes_sweep,
    prog_conv3d2d,
    prog_const_filters,
]
