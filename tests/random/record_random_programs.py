"""Record the outputs of ``random_programs.py``, ``random_scan_programs.py`` and
``random_model_programs.py`` under Theano 1.0.5 (never run by the tests); scan needs the
oracle's Python mode:

    ORACLE_PY=1 ../shared/tools/theano-oracle tests/random/record_random_programs.py [NAME ...]

writes ``tests/random/theano_random_programs.npz`` (key ``program/name``). With program names,
only those are recorded again and the other recorded programs are kept.
"""

import os
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import theano  # noqa: E402
import random_programs  # noqa: E402
import random_scan_programs  # noqa: E402
import random_model_programs  # noqa: E402

PROGRAMS = {**random_programs.PROGRAMS, **random_scan_programs.PROGRAMS,
            **random_model_programs.PROGRAMS}
PATH = os.path.join(HERE, "theano_random_programs.npz")
names = sys.argv[1:] or list(PROGRAMS)
arrays = {}
if sys.argv[1:] and os.path.exists(PATH):
    with np.load(PATH) as old:
        arrays = {k: old[k] for k in old.files if k.split("/", 1)[0] not in names}
for name in names:
    for key, value in PROGRAMS[name](theano).items():
        arrays[f"{name}/{key}"] = np.asarray(value)
    print(name, "recorded")
np.savez_compressed(PATH, **arrays)
