"""Record Theano 1.0.5's results of ``tests/tensor/extra_ops_cases.py`` into
``extra_ops_oracle.npz`` (run under the oracle, from the repository root):

    ../shared/tools/theano-oracle tests/tensor/data/record_extra_ops_oracle.py
"""

import sys
from pathlib import Path

import numpy as np
import theano
import theano.tensor as T
from theano.tensor import extra_ops as E

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from extra_ops_cases import CASES, VALUES

S = sys.modules["theano.tensor.sort"]
record = {}
for name, build in CASES.items():
    inputs, outputs = build(T, E, S)
    fn = theano.function(inputs, list(outputs.values()), on_unused_input="ignore")
    for key, value in zip(outputs, fn(*VALUES[name])):
        record[f"{name}_{key}"] = np.asarray(value)
np.savez_compressed(Path(__file__).parent / "extra_ops_oracle.npz", **record)
print(len(record), "arrays recorded")
