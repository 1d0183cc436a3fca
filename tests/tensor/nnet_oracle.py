"""Access to Theano 1.0.5's recorded results of ``data/record_nnet_oracle.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATA = np.load(Path(__file__).parent / "data" / "nnet_oracle.npz")


def inputs(prefix: str) -> list[np.ndarray]:
    """The recorded inputs of ``prefix`` (``{prefix}_in0``, ``_in1``, ...)."""
    values, k = [], 0
    while f"{prefix}_in{k}" in DATA:
        values.append(DATA[f"{prefix}_in{k}"])
        k += 1
    return values


def check(prefix: str, got: dict, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    """Compare every ``got[name]`` with the recorded ``{prefix}_{name}``."""
    for name, value in got.items():
        np.testing.assert_allclose(np.asarray(value), DATA[f"{prefix}_{name}"], rtol=rtol,
                                   atol=atol, err_msg=f"{prefix} {name}")
