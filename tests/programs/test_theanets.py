"""theanets 0.7 (feed-forward and recurrent networks trained by downhill), run with ``theano``
meaning jitgraph, computes what it computed on Theano 1.0.5: ``expected/theanets.json``,
recorded by ``theanets_programs.py --record`` under the oracle (see :mod:`library_harness`).

The library is not a jitgraph dependency: the test runs where it is installed
(``pip install --no-deps theanets downhill click``) and is skipped elsewhere.
"""

import pytest

from library_harness import check, installed

NEEDED = ['theanets', 'downhill', 'click']

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(installed(m) for m in NEEDED),
                       reason="needs " + ", ".join(NEEDED) + " (pip install --no-deps "
                              "theanets downhill click): a library written for Theano 1.0, not a "
                              "jitgraph dependency"),
]


def test_theanets_programs_match_theano():
    check("theanets_programs.py", "theanets")
