"""Record the outputs of ``random_programs.py`` under Theano 1.0.5 (never run by the tests):

    ../shared/tools/theano-oracle tests/random/record_random_programs.py

writes ``tests/random/theano_random_programs.npz`` (key ``program/name``).
"""

import os
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import theano  # noqa: E402
from random_programs import PROGRAMS  # noqa: E402

arrays = {}
for name, run in PROGRAMS.items():
    for key, value in run(theano).items():
        arrays[f"{name}/{key}"] = np.asarray(value)
    print(name, "recorded")
np.savez_compressed(os.path.join(HERE, "theano_random_programs.npz"), **arrays)
