"""A failing node's error message describes its inputs without copying a device array to the
host (issue 27, bug 7): ``repr`` of a CuPy array copies it (a 16 MB copy for one shape error)
and, after an illegal-address error, the copy itself raises."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.compile.linker import raise_with_node


class DeviceArray:
    """Stands for a device array: shape and dtype on the host, ``repr`` must not be called."""

    def __init__(self, shape: tuple, dtype: str) -> None:
        self.shape, self.dtype = shape, np.dtype(dtype)

    def __repr__(self) -> str:
        raise AssertionError("repr() of a device array copies it to the host")


def _message(*values: object) -> str:
    x, y = T.dmatrix("x"), T.dmatrix("y")
    node = (x + y).owner
    storage = {var: [value] for var, value in zip(node.inputs, values)}
    with pytest.raises(ValueError) as info:
        raise_with_node(ValueError("shapes do not match"), node, 0, storage)
    return str(info.value)


def test_device_arrays_are_described_by_type_dtype_and_shape():
    text = _message(DeviceArray((2048, 2048), "float32"), DeviceArray((3,), "float32"))
    assert "shapes do not match" in text
    assert "DeviceArray float32 (2048, 2048)>" in text and "DeviceArray float32 (3,)>" in text


def test_small_numpy_values_are_shown_and_large_ones_not():
    text = _message(np.arange(4.0).reshape(2, 2), np.zeros((100, 100)))
    assert "array([[0., 1.]," in text and "'not shown'" in text
    assert "Inputs shapes: [(2, 2), (100, 100)]" in text
