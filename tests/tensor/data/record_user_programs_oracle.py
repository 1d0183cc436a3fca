"""Records Theano 1.0.5's results of the user programs (``user_programs_conv.py``,
``user_programs_pool.py``, ``user_programs_nn.py``) into ``user_programs_oracle.npz`` (run under the oracle, never in CI):

    ../shared/tools/theano-oracle tests/tensor/data/record_user_programs_oracle.py

Keys are ``{prog}/{name}`` (``{prog}/{name}[i]`` for the i-th of a list), prefixed with
``float32/`` for the programs run again under ``floatX=float32``.
"""

import os
import sys

import numpy as np
import theano

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import user_programs_conv as conv_programs
import user_programs_nn as nn_programs
import user_programs_pool as pool_programs

out = {}


def record(prefix, program):
    results = {}
    program(theano, results)
    for name, value in results.items():
        key = f"{prefix}{program.__name__}/{name}"
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                out[f"{key}[{i}]"] = np.asarray(item)
        else:
            out[key] = np.asarray(value)


for program in conv_programs.PROGRAMS + pool_programs.PROGRAMS + nn_programs.PROGRAMS:
    record("", program)
theano.config.floatX = "float32"
for program in nn_programs.FLOAT32_PROGRAMS:
    record("float32/", program)
np.savez_compressed(os.path.join(HERE, "user_programs_oracle.npz"), **out)
print(len(out), "results recorded")
