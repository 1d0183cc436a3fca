"""PyMC3 3.8 on a tiny model (log-density and gradient, find_MAP, NUTS and Metropolis draws),
run with ``theano`` meaning jitgraph, computes what it computed on Theano 1.0.5:
``expected/pymc3.json``, recorded by ``pymc3_programs.py --record`` under the oracle (see
:mod:`library_harness`).

PyMC3 is not a jitgraph dependency: the test runs where ``pymc3==3.8`` and its dependencies
(ArviZ, pandas, patsy, tqdm, h5py, matplotlib) are installed and is skipped elsewhere.
"""

import pytest

from library_harness import check, installed

NEEDED = ["pymc3", "arviz", "pandas", "patsy", "tqdm", "h5py"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(installed(m) for m in NEEDED),
                       reason="needs " + ", ".join(NEEDED) + " (pip install --no-deps "
                              "pymc3==3.8 and its dependencies): a library written for Theano "
                              "1.0, not a jitgraph dependency"),
]


def test_pymc3_programs_match_theano():
    check("pymc3_programs.py", "pymc3")
