"""Convolution and pooling cases shared by the tests and by the script that records Theano
1.0.5's results for them (``data/record_conv_oracle.py``, run under the oracle).

NumPy only (the oracle's environment has no jitgraph). Inputs come from
``numpy.random.RandomState``, whose streams are the same in every NumPy version.
"""

from __future__ import annotations

import numpy as np

# (name, image shape, kernel shape, border_mode, subsample, filter_flip, dilation, groups,
#  unshared)
CONV_CASES = [
    ("valid", (2, 3, 7, 6), (4, 3, 3, 2), "valid", (1, 1), True, (1, 1), 1, False),
    ("full_stride", (2, 3, 7, 6), (4, 3, 3, 3), "full", (2, 1), True, (1, 1), 1, False),
    ("half_dil_corr", (2, 3, 7, 8), (4, 3, 3, 2), "half", (1, 2), False, (2, 1), 1, False),
    ("int_pad_groups", (1, 4, 6, 7), (6, 2, 3, 3), (1, 2), (2, 2), True, (1, 1), 2, False),
    ("asym_pad_dil", (2, 2, 7, 6), (3, 2, 2, 3), ((1, 2), (0, 1)), (1, 1), True, (1, 2), 1,
     False),
    ("unshared", (2, 2, 5, 6), (3, 3, 4, 2, 3, 3), "valid", (1, 1), True, (1, 1), 1, True),
    ("unshared_pad_groups", (1, 4, 6, 6), (4, 3, 3, 2, 3, 3), 1, (2, 2), True, (1, 1), 2,
     True),
    ("3d_half", (2, 2, 5, 4, 6), (3, 2, 2, 3, 2), "half", (1, 2, 1), True, (1, 1, 2), 1,
     False),
    ("3d_groups", (1, 4, 4, 5, 3), (4, 2, 3, 2, 2), (1, 0, 1), (2, 1, 1), False, (1, 1, 1), 2,
     False),
]

# (name, input shape, ws, ignore_border, stride, pad, mode)
POOL_CASES = [
    ("max_2x2", (2, 3, 6, 7), (2, 2), True, None, (0, 0), "max"),
    ("max_border", (2, 3, 7, 5), (3, 2), False, (2, 2), (0, 0), "max"),
    ("max_overlap_pad", (1, 2, 7, 6), (3, 3), True, (2, 1), (1, 2), "max"),
    ("max_stride_gt_ws", (2, 1, 7, 8), (2, 2), False, (3, 3), (0, 0), "max"),
    ("sum_border", (2, 2, 7, 5), (3, 2), False, (2, 1), (0, 0), "sum"),
    ("sum_pad", (1, 2, 6, 6), (3, 3), True, (2, 2), (1, 1), "sum"),
    ("avg_inc_pad", (1, 2, 7, 6), (3, 2), True, (2, 2), (2, 1), "average_inc_pad"),
    ("avg_inc_border", (2, 2, 7, 5), (2, 3), False, (2, 2), (0, 0), "average_inc_pad"),
    ("avg_exc_pad", (1, 2, 7, 6), (3, 3), True, (1, 2), (1, 1), "average_exc_pad"),
    ("avg_exc_border", (2, 1, 5, 7), (3, 3), False, (2, 2), (0, 0), "average_exc_pad"),
    ("max_3d_input", (3, 7, 6), (2, 3), True, (1, 2), (1, 1), "max"),
]

# (name, input shape, ws, ignore_border, stride, pad, mode) pooling the last three axes
POOL3D_CASES = [
    ("max3d", (1, 2, 5, 4, 6), (2, 2, 3), True, (2, 1, 2), (1, 0, 1), "max"),
    ("avg3d", (2, 1, 5, 4, 5), (2, 3, 2), False, (2, 2, 2), (0, 0, 0), "average_inc_pad"),
]


def conv_inputs(case: tuple, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Image and kernel of ``case`` (float64)."""
    rng = np.random.RandomState(seed)
    return rng.uniform(-1, 1, case[1]), rng.uniform(-1, 1, case[2])


def pool_input(shape: tuple, seed: int) -> np.ndarray:
    """A float64 input with ties (values on a coarse grid), so that the max-pooling rules for
    equal maxima are exercised."""
    rng = np.random.RandomState(seed)
    return np.round(rng.uniform(-2, 2, shape) * 2) / 2


def projection(shape: tuple, seed: int) -> np.ndarray:
    """Weights of the scalar cost ``sum(output * weights)`` whose gradients are compared."""
    return np.random.RandomState(seed + 1000).uniform(0.5, 1.5, shape)
