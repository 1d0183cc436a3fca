"""Records Theano 1.0.5's results for ``tests/tensor/shape_index_cases.py`` into
``shape_index_oracle.npz`` (run under the oracle from the repository root:
``../shared/tools/theano-oracle tests/tensor/data/record_shape_index_oracle.py``)."""

import os
import sys

import numpy as np
import theano
import theano.tensor as T

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from shape_index_cases import CASES  # noqa: E402

out = {}
failed = []
for case in CASES:
    try:
        values = case(T, theano.function)
    except Exception as exc:  # report every failing case, then stop
        failed.append(f"{case.__name__}: {type(exc).__name__}: {exc}")
        continue
    for k, value in enumerate(values):
        out[f"{case.__name__}/{k}"] = np.asarray(value)
if failed:
    sys.exit("\n".join(failed))
np.savez(os.path.join(os.path.dirname(__file__), "shape_index_oracle.npz"), **out)
print(len(out), "results recorded")
