"""Short user programs for pooling: every mode with padding, strides and
``ignore_border=False``, gradients and gradients of gradients, ``max_pool_2d_same_size``,
``pool_3d``, the pool ops called directly, symbolic window sizes, bad arguments (see
``user_programs_conv.py``)."""

from __future__ import annotations

import numpy as np
from user_programs_conv import err, names

MODES = ["max", "sum", "average_inc_pad", "average_exc_pad"]


def prog_pool_modes_pad(theano, out):
    T = theano.tensor
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    rng = np.random.RandomState(0)
    x = T.tensor4("x")
    xv = np.round(rng.randn(2, 3, 9, 8) * 2) / 2  # ties
    for mode in MODES:
        for i, (ws, ib, st, pad) in enumerate(
            [
                ((3, 3), True, (2, 2), (1, 1)),
                ((2, 3), False, (3, 2), (0, 0)),
                ((3, 2), True, (1, 1), (2, 1)),
                ((4, 4), False, None, (0, 0)),
                ((2, 2), False, (1, 3), (0, 0)),
            ]
        ):
            y = pool_2d(x, ws=ws, ignore_border=ib, stride=st, pad=pad, mode=mode)
            if mode == "average_exc_pad" and pad != (0, 0):
                out[f"{mode}{i}_y"] = theano.function([x], y)(xv)
                continue
            c = (y**2).sum()
            gx = T.grad(c, x)
            ggx = T.grad((gx * xv).sum(), x)  # grad-of-grad wrt x (gradient of gradient)
            f = theano.function([x], [y, gx, ggx])
            r = f(xv)
            out[f"{mode}{i}_y"], out[f"{mode}{i}_gx"], out[f"{mode}{i}_ggx"] = r


def prog_pool_gradgrad_max(theano, out):
    T = theano.tensor
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    rng = np.random.RandomState(1)
    x = T.tensor4("x")
    e = T.tensor4("e")
    xv = rng.randn(2, 2, 7, 7)
    y = pool_2d(x, ws=(3, 3), ignore_border=True, stride=(2, 2), pad=(1, 1), mode="max")
    ev = rng.randn(*theano.function([x], y.shape)(xv))
    gx = T.grad((y * e).sum(), x)
    # hessian-vector like: d/de of <gx, v>  and  d/dx
    v = rng.randn(*xv.shape)
    ge = T.grad((gx * v).sum(), e)
    f = theano.function([x, e], [gx, ge])
    out["gx"], out["ge"] = f(xv, ev)
    # Rop
    xr = T.tensor4("xr")
    rop = T.Rop(y, x, xr)
    out["rop"] = theano.function([x, xr], rop)(xv, v)
    # no ignore_border 3D
    x3 = T.tensor3("x3")
    y3 = pool_2d(x3, ws=(2, 2), ignore_border=False)
    out["y3"] = theano.function([x3], [y3, T.grad(y3.sum(), x3)])(xv[0])


def prog_pool_same_size(theano, out):
    T = theano.tensor
    max_pool_2d_same_size, pool_3d = names(
        theano, "tensor.signal.pool", "max_pool_2d_same_size", "pool_3d"
    )
    rng = np.random.RandomState(2)
    x = T.tensor4("x")
    xv = np.round(rng.randn(2, 2, 7, 6) * 2) / 2
    for i, ps in enumerate([(2, 2), (3, 2), (1, 1), (7, 6)]):
        y = max_pool_2d_same_size(x, ps)
        out[f"y{i}"], out[f"g{i}"] = theano.function([x], [y, T.grad((y * xv).sum(), x)])(xv)
    x5 = T.TensorType("float64", (False,) * 5)("x5")
    x5v = rng.randn(1, 2, 5, 6, 5)
    for mode in MODES:
        y = pool_3d(x5, (2, 3, 2), ignore_border=False, stride=(2, 2, 3), pad=(0, 0, 0), mode=mode)
        out[f"p3_{mode}"] = theano.function([x5], [y, T.grad((y**2).sum(), x5)])(x5v)
        y = pool_3d(x5, (3, 3, 2), ignore_border=True, stride=(2, 1, 2), pad=(1, 1, 1), mode=mode)
        out[f"p3pad_{mode}"] = theano.function(
            [x5], [y] + ([T.grad((y**2).sum(), x5)] if mode != "average_exc_pad" else [])
        )(x5v)


def prog_pool_bad(theano, out):
    T = theano.tensor
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    x = T.tensor4("x")
    err(out, "pad_no_ib", lambda: pool_2d(x, (2, 2), ignore_border=False, pad=(1, 1)))
    err(out, "pad_ge_ws", lambda: pool_2d(x, (2, 2), ignore_border=True, pad=(2, 2)))
    err(out, "bad_mode", lambda: pool_2d(x, (2, 2), ignore_border=True, mode="avg"))
    err(out, "x1d", lambda: pool_2d(T.vector(), (2, 2), ignore_border=True))
    err(
        out,
        "none_ib",
        lambda: out.__setitem__(
            "none_ib_val",
            theano.function([x], pool_2d(x, (2, 2)))(np.arange(25.0).reshape(1, 1, 5, 5)),
        ),
    )
    err(
        out,
        "ds_kw",
        lambda: out.__setitem__(
            "ds_val",
            theano.function(
                [x],
                pool_2d(x, ds=(2, 2), ignore_border=True, st=(1, 1), padding=(1, 1), mode="sum"),
            )(np.arange(25.0).reshape(1, 1, 5, 5)),
        ),
    )
    err(
        out,
        "ws_sym",
        lambda: out.__setitem__(
            "ws_sym_val",
            theano.function(
                [x], pool_2d(x, T.as_tensor_variable(np.array([2, 2])), ignore_border=True)
            )(np.arange(25.0).reshape(1, 1, 5, 5)),
        ),
    )
    err(
        out,
        "small",
        lambda: out.__setitem__(
            "small_val",
            theano.function([x], pool_2d(x, (3, 3), ignore_border=True))(
                np.arange(4.0).reshape(1, 1, 2, 2)
            ),
        ),
    )


def prog_pool_int_dtype(theano, out):
    T = theano.tensor
    pool_2d = names(theano, "tensor.signal.pool", "pool_2d")
    xi = T.itensor4("xi")
    v = np.arange(50, dtype="int32").reshape(1, 2, 5, 5)
    for mode in MODES:
        y = pool_2d(xi, (2, 2), ignore_border=False, mode=mode)
        out[f"{mode}_dtype"] = str(y.dtype)
        out[mode] = theano.function([xi], y)(v)
    xf = T.tensor4("xf", dtype="float32")
    y = pool_2d(xf, (2, 2), ignore_border=True, mode="average_exc_pad", pad=(1, 1))
    out["f32"] = theano.function([xf], [y])(np.arange(50, dtype="float32").reshape(1, 2, 5, 5))


def prog_pool_sym_ws(theano, out):
    T = theano.tensor
    pool_2d, Pool = names(theano, "tensor.signal.pool", "pool_2d", "Pool")
    rng = np.random.RandomState(2)
    x = T.tensor4("x")
    ws = T.ivector("ws")
    st = T.ivector("st")
    pd = T.ivector("pd")
    xv = rng.randn(1, 2, 7, 8)
    for mode in ["max", "sum", "average_inc_pad", "average_exc_pad"]:
        y = pool_2d(x, ws, ignore_border=True, stride=st, pad=pd, mode=mode)
        outs = [y] + ([T.grad((y**2).sum(), x)] if mode != "average_exc_pad" else [])
        out[mode] = theano.function([x, ws, st, pd], outs)(
            xv,
            np.array([3, 2], "int32"),
            np.array([2, 3], "int32"),
            np.array([1, 1] if mode != "average_exc_pad" else [0, 0], "int32"),
        )
    y = Pool(ignore_border=False, mode="max")(x, (2, 2), (2, 2), (0, 0))
    out["op"] = theano.function([x], y)(xv)
    out["op_str"] = str(Pool(ignore_border=False, mode="max"))
    out["out_shape"] = str(Pool.out_shape((1, 2, 7, 8), (3, 2), False, (2, 3), (0, 0)))


def prog_pool_extra(theano, out):
    T = theano.tensor
    pool_2d, MaxPoolGrad, AveragePoolGrad, DownsampleFactorMaxGradGrad, Pool = names(
        theano,
        "tensor.signal.pool",
        "pool_2d",
        "MaxPoolGrad",
        "AveragePoolGrad",
        "DownsampleFactorMaxGradGrad",
        "Pool",
    )
    rng = np.random.RandomState(3)
    x = T.tensor4("x")
    xv = rng.randn(1, 2, 5, 5)
    y = Pool(ignore_border=True)(x, (2, 2), (1, 1), (0, 0))
    gz = T.tensor4("gz")
    g = MaxPoolGrad(ignore_border=True)(x, y, gz, (2, 2), (1, 1), (0, 0))
    gg = DownsampleFactorMaxGradGrad(ignore_border=True)(x, y, gz, (2, 2), (1, 1), (0, 0))
    ag = AveragePoolGrad(ignore_border=True, mode="average_inc_pad")(x, gz, (2, 2), (1, 1), (0, 0))
    gzv = rng.randn(1, 2, 4, 4)
    out["r"] = theano.function([x, gz], [y, g, ag])(xv, gzv)
    out["gg"] = theano.function([x, gz], gg)(xv, rng.randn(1, 2, 5, 5))
    # pooling over 5-d input with pool_2d (extra leading dims)
    x5 = T.TensorType("float64", (False,) * 5)("x5")
    y5 = pool_2d(x5, (2, 2), ignore_border=True, mode="sum")
    out["p5"] = theano.function([x5], [y5, T.grad((y5**2).sum(), x5)])(rng.randn(2, 1, 2, 4, 5))
    # float32 max pool gradient with ties
    xf = T.tensor4("xf", dtype="float32")
    yf = pool_2d(xf, (2, 2), ignore_border=False)
    out["tie"] = theano.function([xf], T.grad(yf.sum(), xf))(np.ones((1, 1, 3, 3), "float32"))


#: the programs, run under floatX=float64
PROGRAMS = [
    prog_pool_modes_pad,
    prog_pool_gradgrad_max,
    prog_pool_same_size,
    prog_pool_bad,
    prog_pool_int_dtype,
    prog_pool_sym_ws,
    prog_pool_extra,
]
