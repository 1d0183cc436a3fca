"""theano.tensor's shape and indexing names against Theano 1.0.5's recorded results
(``shape_index_cases.py``, ``data/shape_index_oracle.npz``), compiled and through ``perform``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from shape_index_cases import CASES

import jitgraph
import jitgraph.tensor as T

ORACLE = np.load(Path(__file__).parent / "data" / "shape_index_oracle.npz")
PY = jitgraph.Mode(linker="py")
STRICT = jitgraph.Mode(linker="c")

# Theano 1.0.5's gradient of permute_row_elements(x, y, inverse=1) applies the inverse
# permutation again (its own verify_grad fails for a y that is not an involution); jitgraph's is
# the true gradient (checked by verify_grad in test_reorder.py).
THEANO_WRONG = {"case_permute/2"}


def _function(mode):
    def function(inputs, outputs, **kwargs):
        return jitgraph.function(inputs, outputs, mode=mode, **kwargs)

    return function


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
@pytest.mark.parametrize("mode", [None, PY, STRICT], ids=["compiled", "perform", "strict_c"])
def test_matches_theano(case, mode):
    results = case(T, _function(mode))
    recorded = sorted((k for k in ORACLE.files if k.startswith(case.__name__ + "/")),
                      key=lambda k: int(k.split("/")[1]))
    assert len(results) == len(recorded)
    for key, value in zip(recorded, results):
        if key in THEANO_WRONG:
            continue
        expected = ORACLE[key]
        if expected.dtype.kind == "U":
            assert str(value) == str(expected), key
            continue
        value = np.asarray(value)
        assert value.dtype == expected.dtype, (key, value.dtype, expected.dtype)
        assert value.shape == expected.shape, (key, value.shape, expected.shape)
        np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12, err_msg=key)
