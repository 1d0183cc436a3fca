"""Every case of ``theano_random.json``/``.npz``: draws recorded from Theano 1.0.5 (both floatX,
three seeds, tuple and symbolic sizes, explicit nstreams, reseeding, several draws per
function; made by ``shared/tools/make_random_fixtures.py``) are drawn again by jitgraph's
compiled functions and compared: bit for bit, except ``normal`` (Box-Muller goes through
log/cos/sin, whose last bit may differ between libm and NumPy)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.sandbox.rng_mrg import MRG_RandomStreams

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "theano_random.json")) as _f:
    CASES = json.load(_f)["cases"]
DRAWS = np.load(os.path.join(HERE, "theano_random.npz"))


def _build(case: dict, srng):
    """(outputs, inputs, input values) of the case, as the fixture script built them."""
    method, kw = case["method"], dict(case["kwargs"])
    fx = case["floatX"]
    if method == "uniform then normal in one function":
        return [srng.uniform((2,)), srng.normal((2,))], [], []
    if kw.get("size") == "x.shape of a (3, 4) input":
        x = T.matrix("x")
        return srng.uniform(size=x.shape), [x], [np.zeros((3, 4), dtype=fx)]
    if "size" in kw and isinstance(kw["size"], list):
        kw["size"] = tuple(kw["size"])
    if "p" in kw and isinstance(kw["p"], list):
        kw["p"] = np.asarray(kw["p"], dtype=fx)
    if "pvals" in kw:
        kw["pvals"] = np.asarray(kw["pvals"], dtype=fx)
    if method == "permutation":
        kw.pop("size")
    return getattr(srng, method)(**kw), [], []


def _run(case: dict) -> list:
    if case["api"].startswith("sandbox"):
        cls = MRG_RandomStreams
    else:
        from jitgraph.tensor.shared_randomstreams import RandomStreams as cls
    with jitgraph.config.change_flags(floatX=case["floatX"]):
        srng = cls(case["seed"])
        out, inputs, values = _build(case, srng)
        f = jitgraph.function(inputs, out)
        calls = case["reseed_after"] or case["draws"]
        draws = [f(*values) for _ in range(calls)]
        if case["reseed_after"] is not None:
            srng.seed(case["reseed_to"])
            draws += [f(*values) for _ in range(case["draws"] - calls)]
    return [np.asarray(d) for d in draws]


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal to within a few ulps of the values' scale (normal draws)."""
    eps = np.finfo(want.dtype).eps
    scale = np.maximum(np.abs(want), 1.0)
    return bool(np.all(np.abs(got.astype(np.float64) - want) <= 8 * eps * scale))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['id']}-{c['api'][:6]}-{c['method'][:12]}")
def test_fixture_case(case: dict) -> None:
    got = _run(case)
    assert len(got) == case["draws"]
    for j, value in enumerate(got):
        want = DRAWS[f"case{case['id']}_draw{j}"]
        assert value.dtype == want.dtype, (j, value.dtype, want.dtype)
        assert value.shape == want.shape, (j, value.shape, want.shape)
        if "normal" in case["method"] and want.dtype.kind == "f":
            assert _close(value, want), (j, value, want)
        else:
            np.testing.assert_array_equal(value, want, err_msg=f"draw {j}")


def test_every_case_is_run() -> None:
    assert len(CASES) == 114
    assert len(DRAWS.files) == sum(c["draws"] for c in CASES)
