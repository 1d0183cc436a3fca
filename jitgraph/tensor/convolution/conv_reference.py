"""NumPy reference of N-d grouped, strided, dilated, padded correlation and its two gradients.

The ``perform`` of every convolution op calls these. They see the padded image through a
strided *window view* of shape ``(batch, channels, *out_spatial, *kernel_spatial)`` (no copy),
and contract it with the kernel by ``tensordot`` (shared kernels) or ``einsum`` (unshared
kernels, one kernel per output position). Kernels are never flipped here: a convolution flips
its kernel before calling :func:`correlate`, and flips the result of :func:`correlate_grad_weights`.

Layouts: images ``(batch, channels, *spatial)``; shared kernels ``(out_channels,
in_channels // groups, *k)``; unshared kernels ``(out_channels, *out_spatial, in_channels //
groups, *k)``.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

Pads = Sequence[tuple[int, int]]


def pad_image(x: np.ndarray, pads: Pads) -> np.ndarray:
    """``x`` with zeros added around its spatial axes."""
    if not any(lo or hi for lo, hi in pads):
        return x
    return np.pad(x, [(0, 0), (0, 0), *pads])


def output_size(padded: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                dilation: Sequence[int]) -> tuple[int, ...]:
    """Spatial output size for a padded image (may be <= 0 when the kernel does not fit)."""
    return tuple((p - ((k - 1) * d + 1)) // s + 1
                 for p, k, s, d in zip(padded, kernel, stride, dilation))


def windows(xp: np.ndarray, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
            dilation: Sequence[int]) -> np.ndarray:
    """Read-only view ``w[n, c, *o, *k] = xp[n, c, *(o * stride + k * dilation)]``."""
    nd = len(kernel)
    st = xp.strides
    shape = xp.shape[:2] + tuple(out) + tuple(kernel)
    strides = (st[0], st[1], *(st[2 + a] * stride[a] for a in range(nd)),
               *(st[2 + a] * dilation[a] for a in range(nd)))
    return as_strided(xp, shape, strides, writeable=False)


def _check_fits(who: str, padded: Sequence[int], kernel: Sequence[int],
                dilation: Sequence[int]) -> None:
    for p, k, d in zip(padded, kernel, dilation):
        if (k - 1) * d + 1 > p:
            raise ValueError(f"{who}: the kernel (spatial shape {tuple(kernel)}, dilation "
                             f"{tuple(dilation)}) is larger than the padded image (spatial "
                             f"shape {tuple(padded)})")


def _groups(channels: int, num_groups: int, who: str, what: str) -> int:
    if channels % num_groups:
        raise ValueError(f"{who}: {what} ({channels}) is not divisible by num_groups "
                         f"({num_groups})")
    return channels // num_groups


def _unshared_subscripts(nd: int) -> tuple[str, str, str]:
    """einsum subscripts: (window N C *o *k, kernel M *o C *k, output N M *o)."""
    o = "pqrs"[:nd]
    k = "ijkl"[:nd]
    return f"NC{o}{k}", f"M{o}C{k}", f"NM{o}"


def correlate(x: np.ndarray, w: np.ndarray, pads: Pads, stride: Sequence[int],
              dilation: Sequence[int], num_groups: int = 1, unshared: bool = False,
              out_dtype: str | None = None) -> np.ndarray:
    """``out[n, m, *o] = sum_{c, k} xp[n, g*C + c, *(o*s + k*d)] * w[m, c, *k]`` where ``g`` is
    the group of output channel ``m`` and ``xp`` the padded image."""
    nd = x.ndim - 2
    who = "conv"
    kernel = w.shape[-nd:]
    xp = pad_image(x, pads)
    _check_fits(who, xp.shape[2:], kernel, dilation)
    out = output_size(xp.shape[2:], kernel, stride, dilation)
    cin = _groups(x.shape[1], num_groups, who, "the image's channel count")
    cout = _groups(w.shape[0], num_groups, who, "the kernel's output channel count")
    if w.shape[-nd - 1] != cin:
        raise ValueError(f"{who}: the kernel expects {w.shape[-nd - 1]} input channels per "
                         f"group but the image has {x.shape[1]} channels in {num_groups} "
                         f"group(s); image shape {x.shape}, kernel shape {w.shape}")
    if unshared and tuple(w.shape[1:1 + nd]) != tuple(out):
        raise ValueError(f"{who}: an unshared kernel must have the output's spatial shape "
                         f"{tuple(out)} in its axes 1..{nd}, got kernel shape {w.shape}")
    dtype = np.result_type(x, w) if out_dtype is None else np.dtype(out_dtype)
    win = windows(xp, out, kernel, stride, dilation)
    result = np.empty((x.shape[0], w.shape[0], *out), dtype=dtype)
    spatial_k = list(range(2 + nd, 2 + 2 * nd))
    for g in range(num_groups):
        wg = win[:, g * cin:(g + 1) * cin]
        kg = w[g * cout:(g + 1) * cout]
        if unshared:
            a, b, c = _unshared_subscripts(nd)
            part = np.einsum(f"{a},{b}->{c}", wg, kg)
        else:
            part = np.tensordot(wg, kg, axes=([1, *spatial_k], [1, *range(2, 2 + nd)]))
            part = np.moveaxis(part, -1, 1)  # (n, *o, m) -> (n, m, *o)
        result[:, g * cout:(g + 1) * cout] = part
    return result


def correlate_grad_weights(x: np.ndarray, top: np.ndarray, kernel: Sequence[int], pads: Pads,
                           stride: Sequence[int], dilation: Sequence[int], num_groups: int = 1,
                           unshared: bool = False, out_dtype: str | None = None) -> np.ndarray:
    """Gradient of :func:`correlate` with respect to its kernel (spatial size ``kernel``), for
    the output gradient ``top``."""
    nd = x.ndim - 2
    who = "conv gradient wrt weights"
    kernel = tuple(int(k) for k in kernel)
    xp = pad_image(x, pads)
    _check_fits(who, xp.shape[2:], kernel, dilation)
    out = output_size(xp.shape[2:], kernel, stride, dilation)
    if tuple(top.shape[2:]) != out or top.shape[0] != x.shape[0]:
        raise ValueError(f"{who}: the output gradient has shape {top.shape}, but an image of "
                         f"shape {x.shape} with kernel size {kernel} gives outputs of shape "
                         f"({x.shape[0]}, _, {', '.join(map(str, out))})")
    cin = _groups(x.shape[1], num_groups, who, "the image's channel count")
    cout = _groups(top.shape[1], num_groups, who, "the output gradient's channel count")
    dtype = np.result_type(x, top) if out_dtype is None else np.dtype(out_dtype)
    win = windows(xp, out, kernel, stride, dilation)
    shape = ((top.shape[1], *out, cin, *kernel) if unshared
             else (top.shape[1], cin, *kernel))
    result = np.empty(shape, dtype=dtype)
    spatial_o = list(range(2, 2 + nd))
    for g in range(num_groups):
        wg = win[:, g * cin:(g + 1) * cin]
        tg = top[:, g * cout:(g + 1) * cout]
        if unshared:
            a, b, c = _unshared_subscripts(nd)
            part = np.einsum(f"{c},{a}->{b}", tg, wg)
        else:
            part = np.tensordot(tg, wg, axes=([0, *spatial_o], [0, *spatial_o]))
        result[g * cout:(g + 1) * cout] = part
    return result


def correlate_grad_inputs(w: np.ndarray, top: np.ndarray, image: Sequence[int], pads: Pads,
                          stride: Sequence[int], dilation: Sequence[int], num_groups: int = 1,
                          unshared: bool = False, out_dtype: str | None = None) -> np.ndarray:
    """Gradient of :func:`correlate` with respect to its image (spatial size ``image``), for the
    output gradient ``top``: every output pixel's gradient is spread back over the image
    pixels its window read (kernel tap by tap, into the padded image), then the padding is
    cut off."""
    nd = top.ndim - 2
    who = "conv gradient wrt inputs"
    image = tuple(int(i) for i in image)
    kernel = w.shape[-nd:]
    padded = tuple(i + lo + hi for i, (lo, hi) in zip(image, pads))
    _check_fits(who, padded, kernel, dilation)
    out = output_size(padded, kernel, stride, dilation)
    if tuple(top.shape[2:]) != out:
        raise ValueError(f"{who}: the output gradient has spatial shape {top.shape[2:]}, but "
                         f"an image of spatial shape {image} with a kernel of shape {w.shape} "
                         f"gives {out}")
    cout = _groups(top.shape[1], num_groups, who, "the output gradient's channel count")
    if w.shape[0] != top.shape[1]:
        raise ValueError(f"{who}: the kernel has {w.shape[0]} output channels but the output "
                         f"gradient has {top.shape[1]}")
    cin = w.shape[-nd - 1]
    dtype = np.result_type(w, top) if out_dtype is None else np.dtype(out_dtype)
    gxp = np.zeros((top.shape[0], cin * num_groups, *padded), dtype=dtype)
    letters = "pqrs"[:nd]
    for g in range(num_groups):
        tg = top[:, g * cout:(g + 1) * cout]
        kg = w[g * cout:(g + 1) * cout]
        for tap in itertools.product(*(range(k) for k in kernel)):
            region = tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                           for t, d, s, o in zip(tap, dilation, stride, out))
            taps = kg[(Ellipsis, *tap)]  # (m, c) or (m, *o, c)
            if unshared:
                part = np.einsum(f"NM{letters},M{letters}C->NC{letters}", tg, taps)
            else:
                part = np.moveaxis(np.tensordot(tg, taps, axes=([1], [0])), -1, 1)
            gxp[(slice(None), slice(g * cin, (g + 1) * cin), *region)] += part
    crop = tuple(slice(lo, lo + i) for (lo, _), i in zip(pads, image))
    return gxp[(slice(None), slice(None), *crop)]
