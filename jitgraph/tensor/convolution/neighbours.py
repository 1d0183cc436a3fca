"""Neighbourhoods of images as rows of a matrix (Theano's ``theano.tensor.nnet.neighbours``).

``images2neibs(ten4, neib_shape, neib_step, mode)`` cuts each ``(rows, cols)`` image of a 4-d
``ten4`` into neighbourhoods of ``neib_shape`` taken every ``neib_step`` pixels and returns one
flattened neighbourhood per row, ordered by batch, channel, then neighbourhood row and column.
Modes:

* ``'valid'``: neighbourhoods must tile the image exactly (``(size - shape) % step == 0``);
* ``'ignore_borders'``: as 'valid', dropping what does not fit at the end;
* ``'half'`` / ``'full'``: as 'valid' after zero-padding each side by ``shape // 2`` /
  ``shape - 1``;
* ``'wrap_centered'``: neighbourhoods (odd shapes) centred every ``step`` pixels from the first
  one, wrapping around the image's borders; ``ceil(size / step)`` of them per axis.

:class:`Images2Neibs` is the op; :class:`Neibs2ImagesAdd` adds neighbourhood rows back into
images (its gradient, for every mode), and :func:`neibs2images` uses it as Theano's inverse.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.dims import _add, _constant_elements, _element, _floordiv, _mul, _sub
from jitgraph.tensor.shaping.shape import _as_shape_vector
from jitgraph.tensor.core.type import TensorType

__all__ = ["Images2Neibs", "Neibs2ImagesAdd", "images2neibs", "neibs2images", "MODES"]

MODES = ("valid", "ignore_borders", "wrap_centered", "half", "full")


class NeighboursShapeError(ValueError, TypeError):
    """The image, neighbourhood shape and step do not fit the mode (Theano raised TypeError)."""


class NeighboursModeError(ValueError, NotImplementedError):
    """An unknown mode (Theano raised NotImplementedError)."""


def _axis_indices(size: int, shape: int, step: int, mode: str, axis: str) -> np.ndarray:
    """``idx[i, k]``: the image index read at offset ``k`` of neighbourhood ``i`` along one
    axis; ``size`` (one past the image) where the zero padding is read."""
    if shape < 1 or step < 1:
        raise ValueError(f"images2neibs: neib_shape and neib_step must be positive, got "
                         f"{shape} and {step} along the {axis}")
    offsets = np.arange(shape)
    if mode == "wrap_centered":
        if shape % 2 == 0:
            raise NeighboursShapeError(f"images2neibs: mode 'wrap_centered' needs odd "
                                       f"neighbourhood shapes, got {shape} along the {axis}")
        if shape > size:
            raise NeighboursShapeError(f"images2neibs: mode 'wrap_centered' needs images at "
                                       f"least as large as the neighbourhood: {size} < {shape} "
                                       f"along the {axis}")
        count = -(-size // step)
        starts = np.arange(count) * step - shape // 2
        return (starts[:, None] + offsets[None, :]) % size
    pad = {"half": shape // 2, "full": shape - 1}.get(mode, 0)
    padded = size + 2 * pad
    if padded < shape:
        raise NeighboursShapeError(f"images2neibs: the neighbourhood ({shape}) is larger than "
                                   f"the {'padded ' if pad else ''}image ({padded}) along the "
                                   f"{axis}")
    if mode != "ignore_borders" and (padded - shape) % step:
        raise NeighboursShapeError(
            f"images2neibs: neib_shape={shape}, neib_step={step} and image size {size} are not "
            f"consistent along the {axis} in mode {mode!r}: (size{' + padding' if pad else ''}"
            f" - shape) must be a multiple of the step; use mode='ignore_borders' to drop the "
            f"remainder")
    count = (padded - shape) // step + 1
    idx = np.arange(count)[:, None] * step + offsets[None, :] - pad
    return np.where((idx < 0) | (idx >= size), size, idx)


def _indices(image: Sequence[int], shape: Sequence[int], step: Sequence[int], mode: str
             ) -> tuple[np.ndarray, np.ndarray]:
    return (_axis_indices(int(image[0]), int(shape[0]), int(step[0]), mode, "rows"),
            _axis_indices(int(image[1]), int(shape[1]), int(step[1]), mode, "columns"))


def _count_symbolic(size: Any, shape: Any, step: Any, mode: str) -> Any:
    if mode == "wrap_centered":
        return _floordiv(_add(size, _sub(step, 1)), step)
    if mode == "half":
        size = _add(size, _mul(_floordiv(shape, 2), 2))
    elif mode == "full":
        size = _add(size, _mul(_sub(shape, 1), 2))
    return _add(_floordiv(_sub(size, shape), step), 1)


class _NeibsBase(Op):
    __props__ = ("mode",)

    def __init__(self, mode: str = "valid") -> None:
        if mode not in MODES:
            raise NeighboursModeError(f"{type(self).__name__}: mode must be one of {MODES}, got "
                                      f"{mode!r}")
        self.mode = mode

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self.mode}}}"

    def _pair(self, value: Any, name: str) -> Variable:
        vec = _as_shape_vector(value, f"images2neibs {name}")
        known = _constant_elements(vec)
        if known and len(known) != 2:
            raise ValueError(f"images2neibs: {name} must have 2 entries, got {value!r}")
        return vec


class Images2Neibs(_NeibsBase):
    """Inputs ``(ten4, neib_shape, neib_step)``; output the matrix of neighbourhoods."""

    def make_node(self, ten4: Any, neib_shape: Any, neib_step: Any = None) -> Apply:
        ten4 = as_tensor_variable(ten4)
        if ten4.ndim != 4:
            raise TypeError(f"images2neibs needs a 4-d input (batch, channels, rows, cols), "
                            f"got {ten4.type}")
        shape = self._pair(neib_shape, "neib_shape")
        step = shape if neib_step is None else self._pair(neib_step, "neib_step")
        out = TensorType(ten4.dtype, (False, False)).make_variable()
        return Apply(self, [ten4, shape, step], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, shape, step = inputs
        n, c, h, w = x.shape
        rows, cols = _indices((h, w), shape, step, self.mode)
        padded = np.zeros((n, c, h + 1, w + 1), dtype=x.dtype)  # the extra row/col: padding
        padded[:, :, :h, :w] = x
        out = padded[:, :, rows[:, None, :, None], cols[None, :, None, :]]
        output_storage[0][0] = out.reshape(-1, rows.shape[1] * cols.shape[1])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        xshape = input_shapes[0]
        shape, step = node.inputs[1], node.inputs[2]
        counts = [_count_symbolic(xshape[2 + a], _element(shape, a), _element(step, a),
                                  self.mode) for a in range(2)]
        rows = _mul(_mul(xshape[0], xshape[1]), _mul(counts[0], counts[1]))
        return [(rows, _mul(_element(shape, 0), _element(shape, 1)))]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, shape, step = inputs
        if x.dtype not in ("float16", "float32", "float64"):
            return [None, None, None]
        return [Neibs2ImagesAdd(self.mode)(output_grads[0], x.shape, shape, step), None, None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0], *inputs[1:])]


class Neibs2ImagesAdd(_NeibsBase):
    """Inputs ``(neibs, image_shape, neib_shape, neib_step)``: images of ``image_shape`` (4
    entries) where each neighbourhood row of ``neibs`` is added back onto the pixels it was
    read from (padding dropped). The gradient of :class:`Images2Neibs`."""

    def make_node(self, neibs: Any, image_shape: Any, neib_shape: Any, neib_step: Any = None
                  ) -> Apply:
        neibs = as_tensor_variable(neibs)
        if neibs.ndim != 2:
            raise TypeError(f"neibs2images needs a matrix of neighbourhoods, got {neibs.type}")
        image_shape = _as_shape_vector(image_shape, "neibs2images original_shape")
        known = _constant_elements(image_shape)
        if known and len(known) != 4:
            raise ValueError(f"neibs2images: the image shape must have 4 entries, got "
                             f"{known}")
        shape = self._pair(neib_shape, "neib_shape")
        step = shape if neib_step is None else self._pair(neib_step, "neib_step")
        out = TensorType(neibs.dtype, (False,) * 4).make_variable()
        return Apply(self, [neibs, image_shape, shape, step], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        neibs, image_shape, shape, step = inputs
        n, c, h, w = (int(s) for s in image_shape)
        rows, cols = _indices((h, w), shape, step, self.mode)
        expected = (n * c * rows.shape[0] * cols.shape[0], rows.shape[1] * cols.shape[1])
        if neibs.shape != expected:
            raise ValueError(f"neibs2images: got neighbourhoods of shape {neibs.shape}, but "
                             f"images of shape {(n, c, h, w)} with neib_shape "
                             f"{tuple(int(s) for s in shape)} give {expected}")
        values = neibs.reshape(n, c, rows.shape[0], cols.shape[0], rows.shape[1], cols.shape[1])
        padded = np.zeros((n, c, h + 1, w + 1), dtype=node.outputs[0].dtype)
        # one offset at a time: within one, distinct neighbourhoods read distinct pixels
        for a in range(rows.shape[1]):
            for b in range(cols.shape[1]):
                padded[:, :, rows[:, a][:, None], cols[:, b][None, :]] += values[..., a, b]
        output_storage[0][0] = np.ascontiguousarray(padded[:, :, :h, :w])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(_element(node.inputs[1], a) for a in range(4))]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        _, _, shape, step = inputs
        return [Images2Neibs(self.mode)(output_grads[0], shape, step), None, None, None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False], [False]]


def images2neibs(ten4: Any, neib_shape: Any, neib_step: Any = None, mode: str = "valid"
                 ) -> Variable:
    """The neighbourhoods of the images of ``ten4`` as rows (see the module docstring);
    ``neib_step`` defaults to ``neib_shape`` (non-overlapping neighbourhoods)."""
    return Images2Neibs(mode)(ten4, neib_shape, neib_step)


def neibs2images(neibs: Any, neib_shape: Any, original_shape: Any, mode: str = "valid"
                 ) -> Variable:
    """Images of ``original_shape`` rebuilt from the non-overlapping neighbourhoods ``neibs``
    that ``images2neibs(images, neib_shape, mode=mode)`` made ('valid' or 'ignore_borders';
    with 'ignore_borders' the pixels no neighbourhood covered are 0)."""
    if mode not in ("valid", "ignore_borders"):
        raise NotImplementedError(f"neibs2images supports modes 'valid' and 'ignore_borders' "
                                  f"(as Theano's), not {mode!r}; for the others use the "
                                  f"gradient of images2neibs (Neibs2ImagesAdd), which adds "
                                  f"overlapping neighbourhoods")
    return Neibs2ImagesAdd(mode)(neibs, original_shape, neib_shape, neib_shape)
