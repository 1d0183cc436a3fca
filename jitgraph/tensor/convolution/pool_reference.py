"""NumPy reference of N-d pooling (max, sum, averages) and of its gradients, over the last
``nd`` axes of an array.

Window ``o`` along an axis covers the padded coordinates ``[o * stride, o * stride + ws)``; the
image occupies ``[pad, pad + size)``. Padding never takes part in a maximum; the averages
divide by the number of window pixels inside the padded image (``average_inc_pad``) or inside
the image (``average_exc_pad``). With ``ignore_border=False`` the last window may stick out of
the image and is cut there (its average divides by what is left).

Every function works offset by offset of the window (``prod(ws)`` strided slices): few
iterations, each a vectorised NumPy operation over all windows.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def out_size_1axis(size: int, ws: int, stride: int, pad: int, ignore_border: bool) -> int:
    """Number of windows along one axis."""
    padded = size + 2 * pad
    if ignore_border:
        return max(0, (padded - ws) // stride + 1)
    if stride >= ws:
        return (padded - 1) // stride + 1
    return max(0, (padded - 1 - ws + stride) // stride) + 1


def check_params(ws: Sequence[int], stride: Sequence[int], pad: Sequence[int],
                 ignore_border: bool, who: str) -> None:
    """Raise ValueError/NotImplementedError naming the bad window, stride or padding."""
    if any(w < 1 for w in ws):
        raise ValueError(f"{who}: the window size ws must be positive, got {tuple(ws)}")
    if any(s < 1 for s in stride):
        raise ValueError(f"{who}: the stride must be positive, got {tuple(stride)}")
    if any(p < 0 for p in pad):
        raise ValueError(f"{who}: the padding must be non-negative, got {tuple(pad)}")
    if any(pad) and not ignore_border:
        raise NotImplementedError(f"{who}: padding works only with ignore_border=True")
    if any(p >= w for p, w in zip(pad, ws)):
        raise NotImplementedError(f"{who}: the padding {tuple(pad)} must be smaller than the "
                                  f"window size {tuple(ws)}")


class Geometry:
    """Windows of one pooling call: sizes, output shape and the padded working shape."""

    def __init__(self, shape: Sequence[int], ws: Sequence[int], stride: Sequence[int],
                 pad: Sequence[int], ignore_border: bool, who: str = "pool") -> None:
        self.nd = len(ws)
        if len(shape) < self.nd:
            raise ValueError(f"{who}: the input needs at least {self.nd} dimensions, got shape "
                             f"{tuple(shape)}")
        ws, stride, pad = (tuple(int(v) for v in a) for a in (ws, stride, pad))
        check_params(ws, stride, pad, ignore_border, who)
        self.ws, self.stride, self.pad = ws, stride, pad
        self.lead = tuple(shape[:-self.nd])
        self.size = tuple(shape[-self.nd:])
        self.out = tuple(out_size_1axis(i, w, s, p, ignore_border)
                         for i, w, s, p in zip(self.size, ws, stride, pad))
        # working array: the padded image, extended at the end so every window fits
        self.work = tuple(max(i + 2 * p, (o - 1) * s + w) if o else i + 2 * p
                          for i, p, o, s, w in zip(self.size, pad, self.out, stride, ws))

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.lead + self.out

    def padded(self, x: np.ndarray, fill: float) -> np.ndarray:
        """``x`` placed in the working array, the rest filled with ``fill``."""
        work = np.full(self.lead + self.work, fill, dtype=x.dtype)
        work[self.inner()] = x
        return work

    def inner(self) -> tuple:
        """Index of the image inside the working array."""
        return (Ellipsis, *(slice(p, p + i) for p, i in zip(self.pad, self.size)))

    def offsets(self) -> "itertools.product":
        return itertools.product(*(range(w) for w in self.ws))

    def region(self, offset: Sequence[int]) -> tuple:
        """Index of the pixel at ``offset`` in every window (a strided slice per axis)."""
        return (Ellipsis, *(slice(f, f + s * (o - 1) + 1, s) if o else slice(0, 0)
                            for f, s, o in zip(offset, self.stride, self.out)))

    def counts(self, include_pad: bool) -> np.ndarray:
        """Number of pixels of each window inside the padded image (``include_pad``) or inside
        the image, broadcastable against the output."""
        total = np.ones((), dtype="float64")
        for a in range(self.nd):
            starts = np.arange(self.out[a]) * self.stride[a]
            lo = 0 if include_pad else self.pad[a]
            hi = self.size[a] + (2 * self.pad[a] if include_pad else self.pad[a])
            n = np.minimum(starts + self.ws[a], hi) - np.maximum(starts, lo)
            total = np.multiply.outer(total, n.astype("float64"))
        return total


def _lowest(dtype: np.dtype) -> float:
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def pool(x: np.ndarray, ws: Sequence[int], stride: Sequence[int], pad: Sequence[int],
         ignore_border: bool, mode: str) -> np.ndarray:
    """Pooled ``x`` (same dtype; integer averages are truncated toward zero)."""
    g = Geometry(x.shape, ws, stride, pad, ignore_border)
    if mode == "max":
        xp = g.padded(x, _lowest(x.dtype))
        out = np.full(g.out_shape, _lowest(x.dtype), dtype=x.dtype)
        for off in g.offsets():
            np.maximum(out, xp[g.region(off)], out=out)
        return out
    acc_dtype = "float64" if x.dtype.kind in "biu" else x.dtype
    xp = g.padded(x.astype(acc_dtype, copy=False), 0)
    total = np.zeros(g.out_shape, dtype=acc_dtype)
    for off in g.offsets():
        total += xp[g.region(off)]
    if mode != "sum":
        total = total / g.counts(mode == "average_inc_pad")
    return total.astype(x.dtype, copy=False)


def max_pool_grad(x: np.ndarray, maxout: np.ndarray, gz: np.ndarray, ws: Sequence[int],
                  stride: Sequence[int], pad: Sequence[int], ignore_border: bool) -> np.ndarray:
    """Gradient of max pooling: each window's ``gz`` goes to every pixel equal to its max."""
    g = Geometry(x.shape, ws, stride, pad, ignore_border, "max pool gradient")
    _check_out(g, maxout, "maxout")
    _check_out(g, gz, "gz")
    xp = g.padded(x, _lowest(x.dtype))
    gp = np.zeros(g.lead + g.work, dtype=np.result_type(x.dtype, gz.dtype))
    for off in g.offsets():
        r = g.region(off)
        gp[r] += np.where(xp[r] == maxout, gz, 0)
    return gp[g.inner()].astype(x.dtype, copy=False)


def average_pool_grad(x_shape: Sequence[int], gz: np.ndarray, ws: Sequence[int],
                      stride: Sequence[int], pad: Sequence[int], ignore_border: bool, mode: str,
                      dtype: str) -> np.ndarray:
    """Gradient of sum/average pooling: each window's ``gz`` (divided by its count) spread
    over its pixels."""
    g = Geometry(x_shape, ws, stride, pad, ignore_border, "average pool gradient")
    _check_out(g, gz, "gz")
    share = gz.astype("float64") if gz.dtype.kind in "biu" else gz
    if mode != "sum":
        share = share / g.counts(mode == "average_inc_pad")
    gp = np.zeros(g.lead + g.work, dtype=share.dtype)
    for off in g.offsets():
        gp[g.region(off)] += share
    return gp[g.inner()].astype(dtype, copy=False)


def max_pool_grad_grad(x: np.ndarray, maxout: np.ndarray, ggx: np.ndarray, ws: Sequence[int],
                       stride: Sequence[int], pad: Sequence[int], ignore_border: bool
                       ) -> np.ndarray:
    """Gradient of :func:`max_pool_grad` with respect to ``gz``: for each window the sum of
    ``ggx`` over the pixels equal to its max."""
    g = Geometry(x.shape, ws, stride, pad, ignore_border, "max pool second gradient")
    _check_out(g, maxout, "maxout")
    if ggx.shape != x.shape:
        raise ValueError(f"max pool second gradient: ggx has shape {ggx.shape}, expected the "
                         f"input's shape {x.shape}")
    xp = g.padded(x, _lowest(x.dtype))
    ggp = g.padded(ggx, 0)
    out = np.zeros(g.out_shape, dtype=ggx.dtype)
    for off in g.offsets():
        r = g.region(off)
        out += np.where(xp[r] == maxout, ggp[r], 0)
    return out


def max_pool_rop(x: np.ndarray, ex: np.ndarray, ws: Sequence[int], stride: Sequence[int],
                 pad: Sequence[int], ignore_border: bool) -> np.ndarray:
    """R-operator of max pooling: ``ex`` at each window's first maximum (row-major order)."""
    g = Geometry(x.shape, ws, stride, pad, ignore_border, "max pool R-op")
    if ex.shape != x.shape:
        raise ValueError(f"max pool R-op: the evaluation point has shape {ex.shape}, expected "
                         f"the input's shape {x.shape}")
    xp = g.padded(x, _lowest(x.dtype))
    ep = g.padded(ex, 0)
    best = np.full(g.out_shape, _lowest(x.dtype), dtype=x.dtype)
    out = np.zeros(g.out_shape, dtype=ex.dtype)
    for off in g.offsets():
        r = g.region(off)
        better = xp[r] > best
        best = np.where(better, xp[r], best)
        out = np.where(better, ep[r], out)
    return out


def _check_out(g: Geometry, value: np.ndarray, name: str) -> None:
    if value.shape != g.out_shape:
        raise ValueError(f"pool gradient: {name} has shape {value.shape}, but pooling an input "
                         f"of shape {g.lead + g.size} gives {g.out_shape}")
