"""User programs for convolutional networks (``user_programs_conv.py``,
``user_programs_nn.py``) give Theano 1.0.5's recorded numbers, shapes, dtypes and exception
classes (``data/user_programs_oracle.npz``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import user_programs_conv as conv_programs
import user_programs_nn as nn_programs
import user_programs_pool as pool_programs

import jitgraph

RECORD = np.load(Path(__file__).parent / "data" / "user_programs_oracle.npz")
PROGRAMS = conv_programs.PROGRAMS + pool_programs.PROGRAMS + nn_programs.PROGRAMS


def run(program) -> dict:
    results: dict = {}
    program(jitgraph, results)
    flat = {}
    for name, value in results.items():
        if isinstance(value, (list, tuple)):
            flat.update({f"{name}[{i}]": item for i, item in enumerate(value)})
        else:
            flat[name] = value
    return flat


def check(program, prefix: str) -> None:
    got = run(program)
    head = f"{prefix}{program.__name__}/"
    expected = {k[len(head):]: RECORD[k] for k in RECORD.files if k.startswith(head)}
    assert expected, "the program has a record"
    # exception messages are people's text: only the classes must agree
    keys = {k for k in expected if not k.endswith("_message")}
    assert keys == {k for k in got if not k.endswith("_message")}
    for key in sorted(keys):
        want, have = expected[key], np.asarray(got[key])
        where = f"{program.__name__} {key}"
        if want.dtype.kind == "U" and str(want).startswith("raises "):
            # jitgraph's exception is an instance of the class Theano raised (it may be more
            # precise: a ValueError that is also the TypeError Theano raised)
            theano_class = str(want).split()[1]
            assert theano_class in str(have).split()[1:], f"{where}: {have} (Theano: {want})"
            continue
        if want.dtype.kind == "U":
            assert str(have) == str(want), f"{where}: {have} (Theano: {want})"
            continue
        assert have.shape == want.shape and have.dtype == want.dtype, \
            f"{where}: {have.dtype}{have.shape}, Theano {want.dtype}{want.shape}"
        if want.dtype.kind == "f":
            # float32: the two libraries sum in different orders
            tight = want.dtype == np.float64
            np.testing.assert_allclose(have, want, rtol=1e-6 if tight else 1e-4,
                                       atol=1e-9 if tight else 1e-5, err_msg=where)
        else:
            np.testing.assert_array_equal(have, want, err_msg=where)


@pytest.mark.filterwarnings("ignore:pool_2d")  # the programs call it the deprecated ways too
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__[5:] for p in PROGRAMS])
def test_program_matches_theano(program):
    check(program, "")


@pytest.mark.parametrize("program", nn_programs.FLOAT32_PROGRAMS,
                         ids=[p.__name__[5:] for p in nn_programs.FLOAT32_PROGRAMS])
def test_program_matches_theano_under_floatx_float32(program):
    with jitgraph.config.change_flags(floatX="float32"):
        check(program, "float32/")


def test_conv_gradient_with_integer_or_other_precision_kernel():
    """Where Theano refused the gradient (a kernel of another dtype than the image), the
    gradient is the one of the same convolution in the common dtype (it was computed into an
    integer array and failed at run time)."""
    T = jitgraph.tensor
    rng = np.random.RandomState(0)
    xv, kv = rng.randn(2, 1, 5, 6), rng.randint(-2, 3, (3, 1, 3, 3))
    x, w = T.tensor4("x"), T.tensor4("w")
    reference = jitgraph.function([x, w], T.grad((T.nnet.conv2d(x, w) ** 2).sum(), x))(
        xv, kv.astype("float64"))
    for kernel in (kv.astype("int32"), T.constant(kv.astype("int32"))):
        k = T.itensor4("k") if isinstance(kernel, np.ndarray) else kernel
        gx = T.grad((T.nnet.conv2d(x, k) ** 2).sum(), x)
        inputs = [x, k] if isinstance(kernel, np.ndarray) else [x]
        values = [xv, kernel] if isinstance(kernel, np.ndarray) else [xv]
        np.testing.assert_allclose(jitgraph.function(inputs, gx)(*values), reference,
                                   rtol=1e-12)
    w32 = T.tensor4("w32", dtype="float32")
    gw = T.grad((T.nnet.conv2d(x, w32) ** 2).sum(), w32)
    assert gw.dtype == "float32"
    np.testing.assert_allclose(
        jitgraph.function([x, w32], gw)(xv, kv.astype("float32")),
        jitgraph.function([x, w], T.grad((T.nnet.conv2d(x, w) ** 2).sum(), w))(
            xv, kv.astype("float64")), rtol=1e-5)


def test_conv_assert_shape_flag_checks_the_hints():
    """Under ``conv.assert_shape`` (off by default, as Theano's) the convolution ops check the
    input_shape/filter_shape hints at run time; ``abstract_conv.assert_shape`` is that check."""
    T = jitgraph.tensor
    from jitgraph.tensor.nnet.abstract_conv import assert_shape

    x, w = T.tensor4("x"), T.tensor4("w")
    xv, wv = np.ones((1, 3, 8, 7)), np.ones((4, 3, 3, 2))
    hints = {"input_shape": (2, 3, 8, 7), "filter_shape": (4, 3, 3, 2)}
    y = T.nnet.conv2d(x, w, **hints)
    assert jitgraph.function([x, w], y)(xv, wv).shape == (1, 4, 6, 6)  # not checked
    assert assert_shape(x, (1, 3, None, None)) is x
    with jitgraph.config.change_flags(conv__assert_shape=True):
        y = T.nnet.conv2d(x, w, **hints)
        fn = jitgraph.function([x, w], [y, *T.grad(y.sum(), [x, w])])
        checked = jitgraph.function([x], assert_shape(x, (1, 3, None, None)))
    assert fn(np.ones((2, 3, 8, 7)), wv)[0].shape == (2, 4, 6, 6)
    with pytest.raises(AssertionError, match="dimension 0"):
        fn(xv, wv)
    checked(xv)
    with pytest.raises(AssertionError, match="dimension 1"):
        checked(np.ones((1, 2, 8, 7)))
