"""MRG_RandomStreams' float16 draws are Theano 1.0.5's: the low 15 bits of each integer plus
1, times Theano's float16 constant, so they stay inside (0, 1).

Before, the integer was scaled as for float32 and rounded to float16: about one value in 5,000
was exactly 1.0 (``uniform`` promises values below 1; a ``log(1 - u)`` became ``-inf``), and the
numbers differed from Theano's. The expected values were recorded from Theano 1.0.5
(``/work/shared/tools/theano-oracle``): seed 42, two calls of a (7, 5) draw.
"""

from __future__ import annotations

import numpy as np
import pytest

from jitgraph import function
from jitgraph.sandbox.rng_mrg import MRG_RandomStreams

FIRST = [[0.163818359375, 0.4052734375, 0.5986328125, 0.7900390625, 0.47314453125],
         [0.1588134765625, 0.424560546875, 0.74462890625, 0.328857421875, 0.0197296142578125],
         [0.30029296875, 0.69921875, 0.1844482421875, 0.5810546875, 0.12469482421875],
         [0.306640625, 0.409912109375, 0.1702880859375, 0.9326171875, 0.5478515625],
         [0.64111328125, 0.56201171875, 0.755859375, 0.2744140625, 0.83251953125],
         [0.329345703125, 0.97607421875, 0.9541015625, 0.97216796875, 0.50927734375],
         [0.036590576171875, 0.8330078125, 0.364501953125, 0.302978515625, 0.07672119140625]]
SECOND_ROW0 = [0.6328125, 0.70068359375, 0.76708984375, 0.37109375, 0.60498046875]


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_float16_draws_are_theanos(mode):
    f = function([], MRG_RandomStreams(seed=42).uniform(size=(7, 5), dtype="float16"),
                 mode=mode)
    first = f()
    assert first.dtype == np.float16
    np.testing.assert_array_equal(first, np.array(FIRST, dtype=np.float16))
    np.testing.assert_array_equal(f()[0], np.array(SECOND_ROW0, dtype=np.float16))


def test_float16_draws_stay_inside_the_unit_interval():
    values = function([], MRG_RandomStreams(seed=42).uniform(size=(300, 300),
                                                              dtype="float16"))()
    assert 0 < values.min() and values.max() < 1  # Theano: 3.0458e-05 and 0.998046875
    assert float(values.max()) == 0.998046875
