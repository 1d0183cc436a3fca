"""images2neibs / neibs2images against Theano 1.0.5's recorded results (every mode);
gradients (also where Theano has none) by verify_grad; errors."""

from __future__ import annotations

import numpy as np
import pytest
from nnet_oracle import DATA, check, inputs

import jitgraph
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.convolution import neighbours as N
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.core.type import TensorType

CASES = [("valid_step", (1, 3), None, "valid"), ("valid_overlap", (3, 2), (1, 2), "valid"),
         ("ignore", (2, 4), None, "ignore_borders"),
         ("ignore_step", (2, 2), (3, 3), "ignore_borders"),
         ("wrap", (3, 3), None, "wrap_centered"), ("wrap_step", (3, 3), (2, 2), "wrap_centered"),
         ("half", (3, 5), (2, 1), "half"), ("full", (2, 3), (1, 1), "full")]


def tensor(nd, dtype="float64"):
    return TensorType(dtype, (False,) * nd).make_variable()


@pytest.mark.parametrize("name,shape,step,mode", CASES)
def test_images2neibs_matches_theano(name, shape, step, mode, infer_shape_ok):
    (xv,) = inputs(f"neib_{name}")
    x = tensor(4)
    o = N.images2neibs(x, shape, step, mode=mode)
    check(f"neib_{name}", {"out": jitgraph.function([x], o)(xv)}, rtol=0, atol=0)
    infer_shape_ok(o, {x: xv})
    if f"neib_{name}_g_grad" in DATA:
        xg, wv = inputs(f"neib_{name}_g")
        w = tensor(2)
        check(f"neib_{name}_g", {"grad": jitgraph.function([x, w], grad((o * w).sum(), x))(
            xg, wv)})
    rng = np.random.default_rng(1)
    verify_grad(lambda a: N.images2neibs(a, shape, step, mode=mode),
                [rng.normal(size=(1, 2, 5, 6))], rng=rng)


@pytest.mark.parametrize("prefix,shape,original,mode", [
    ("neib2img_valid", (2, 3), (2, 1, 4, 6), "valid"),
    ("neib2img_ignore_borders", (2, 3), (2, 1, 4, 6), "ignore_borders"),
    ("neib2img_ignore_pad", (2, 2), (1, 2, 5, 4), "ignore_borders")])
def test_neibs2images_matches_theano(prefix, shape, original, mode):
    (nv,) = inputs(prefix)
    n = tensor(2)
    out = N.neibs2images(n, shape, original, mode=mode)
    check(prefix, {"out": jitgraph.function([n], out)(nv)}, rtol=0, atol=0)
    # the inverse of images2neibs on the pixels the neighbourhoods cover
    x = tensor(4)
    back = evaluate(N.neibs2images(N.images2neibs(x, shape, mode=mode), shape, x.shape,
                                   mode=mode), {x: DATA[f"{prefix}_out"]})
    np.testing.assert_array_equal(back, DATA[f"{prefix}_out"])


def test_symbolic_shapes_and_errors():
    x = tensor(4)
    shape = TensorType("int64", (False,)).make_variable()
    xv = np.arange(60.0).reshape(2, 1, 5, 6)
    got = evaluate(N.images2neibs(x, shape, mode="ignore_borders"), {x: xv, shape: [2, 2]})
    assert got.shape == (12, 4)
    with pytest.raises(ValueError, match="not consistent"):
        evaluate(N.images2neibs(x, (2, 2)), {x: xv})
    with pytest.raises(TypeError, match="not consistent"):  # Theano raised TypeError
        evaluate(N.images2neibs(x, (2, 2)), {x: xv})
    with pytest.raises(ValueError, match="odd"):
        evaluate(N.images2neibs(x, (2, 3), mode="wrap_centered"), {x: xv})
    with pytest.raises(TypeError, match="4-d"):
        N.images2neibs(tensor(2), (2, 2))
    with pytest.raises(ValueError, match="mode"):
        N.images2neibs(x, (2, 2), mode="circular")
    with pytest.raises(NotImplementedError, match="valid"):
        N.neibs2images(tensor(2), (2, 2), (1, 1, 4, 4), mode="half")
    i = tensor(4, "int32")
    assert N.images2neibs(i, (2, 2)).dtype == "int32"
