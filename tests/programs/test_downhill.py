"""downhill 0.4 (Theano optimizers: SGD, NAG, RProp, AdaGrad, RMSProp, AdaDelta, Adam, ESGD), run
with ``theano`` meaning jitgraph, computes what it computed on Theano 1.0.5:
``expected/downhill.json``, recorded by ``downhill_programs.py --record`` under the oracle (see
:mod:`library_harness`).

The library is not a jitgraph dependency: the test runs where it is installed
(``pip install --no-deps downhill click``) and is skipped elsewhere.
"""

import pytest

from library_harness import check, installed

NEEDED = ['downhill', 'click']

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(installed(m) for m in NEEDED),
                       reason="needs " + ", ".join(NEEDED) + " (pip install --no-deps "
                              "downhill click): a library written for Theano 1.0, not a jitgraph "
                              "dependency"),
]


def test_downhill_programs_match_theano():
    check("downhill_programs.py", "downhill")
