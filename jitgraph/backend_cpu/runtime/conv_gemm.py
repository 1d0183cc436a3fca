"""Running a correlation and its gradients as im2col/col2im kernels around NumPy's BLAS.

The batch is cut into chunks of images whose column matrix (``C * prod(kernel)`` rows,
``chunk * prod(output)`` columns) stays within :data:`COLUMN_BYTES` (cache-sized: one large
``gemm`` per chunk and group is as fast per image as one over the whole batch, without
touching a column matrix of hundreds of megabytes). Per chunk:

* forward: ``im2col``, then ``out[chunk, group] = kernel_group @ col_group`` (one ``numpy.dot``,
  on the BLAS's threads or on one, see :mod:`~jitgraph.backend_cpu.runtime.blas_threads`),
  transposed from ``(M, chunk, P)`` into the ``(chunk, M, P)`` output;
* kernel gradient: ``im2col``, then ``gw_group += top_group (M, chunk*P) @ col_group.T``;
* image gradient: ``col_group = kernel_group.T @ top_group``, then ``col2im``.

``im2col``/``col2im`` run on all threads (one range of images each) when ``openmp`` is on and
the chunk is large enough. Shapes are checked here with errors that name them.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from jitgraph.backend_cpu.codegen.kernels import kernel_module
from jitgraph.backend_cpu.runtime.blas_threads import dot as blas_dot
from jitgraph.backend_cpu.runtime.parallel import run_chunks

#: Target size of one chunk's column matrix (bytes).
COLUMN_BYTES = 1 << 22


class CorrRunner:
    """One correlation node's parameters and its kernels (resolved on first use; pickles
    without them, so a stored program refers to the kernel source only). With
    ``flipped_output`` the kernel gradient is returned as a reversed view (along the spatial
    axes) of a C-contiguous array: for a graph that only reads it reversed."""

    flipped_output = False  # (runners pickled before it existed)

    def __init__(self, kernels_source: Any, op: Any, dtype: str, parallel: bool,
                 minsize: int, flipped_output: bool = False) -> None:
        self.kernels_source = kernels_source
        self.op = op  # its pads(kernel) gives the padding ('full'/'half' follow the kernel)
        self.nd, self.groups = op.convdim, op.num_groups
        self.stride, self.dilation = op.subsample, op.filter_dilation
        self.dtype = np.dtype(dtype)
        self.parallel, self.minsize = parallel, minsize
        self.flipped_output = flipped_output
        self._fns: dict[str, Any] = {}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_fns"] = {}
        return state

    def kernel(self, entry: str) -> Any:
        fn = self._fns.get(entry)
        if fn is None:
            fn = self._fns[entry] = kernel_module(self.kernels_source).get(entry)
        return fn

    # -- geometry ------------------------------------------------------------------------
    def out_size(self, image: Sequence[int], kernel: Sequence[int], who: str
                 ) -> tuple[tuple, tuple]:
        """(the paddings, the output's spatial shape); raises when the kernel does not fit."""
        return self.op.checked_out_size(image, kernel, who)

    def geometry(self, channels: int, image: Sequence[int], kernel: Sequence[int],
                 pads: Sequence[tuple[int, int]], out: Sequence[int]) -> np.ndarray:
        return np.array([channels, *image, *kernel, *self.stride, *self.dilation,
                         *(lo for lo, _ in pads), *out], dtype=np.int64)

    def chunk(self, rows: int, npix: int) -> int:
        return max(1, COLUMN_BYTES // max(1, rows * npix * self.dtype.itemsize))

    def column_blocks(self, n: int, rows: int, npix: int) -> Iterator[tuple[int, int, np.ndarray]]:
        """``(n0, b, col)`` for images ``n0 .. n0+b`` in blocks sized to :data:`COLUMN_BYTES`;
        ``col`` is a ``(rows, b*npix)`` view of one buffer reused by every block."""
        nb = min(n, self.chunk(rows, npix))
        buffer = np.empty(rows * nb * npix, dtype=self.dtype)
        for n0 in range(0, n, nb):
            b = min(nb, n - n0)
            yield n0, b, buffer[:rows * b * npix].reshape(rows, b * npix)

    @staticmethod
    def im2col(x: np.ndarray) -> str:
        return "im2col_c" if x.flags.c_contiguous else "im2col_a"

    def run_images(self, entry: str, args: tuple, count: int, work: int) -> None:
        """``entry(*args, start, stop)`` over ``count`` images, threaded when worth it."""
        fn = self.kernel(entry)
        if self.parallel and count > 1 and work >= self.minsize:
            run_chunks(fn, args, count)
        else:
            fn(*args, 0, count)

    def _groups_of(self, total: int, what: str, who: str) -> int:
        if total % self.groups:
            raise ValueError(f"{who}: {what} ({total}) is not divisible by num_groups "
                             f"({self.groups})")
        return total // self.groups

    def _array(self, value: Any, ndim: int, name: str, who: str) -> np.ndarray:
        value = np.asarray(value)
        if value.ndim != ndim or value.dtype != self.dtype:
            raise TypeError(f"{who}: {name} must be a {ndim}-d {self.dtype} array, got "
                            f"{value.dtype} of shape {value.shape}")
        return value

    # -- the three computations ----------------------------------------------------------
    def forward(self, x: Any, w: Any) -> np.ndarray:
        who, nd = "CorrMM", self.nd
        x, w = self._array(x, nd + 2, "the image", who), self._array(w, nd + 2, "the kernel", who)
        n, c = x.shape[:2]
        m, kernel = w.shape[0], w.shape[2:]
        cg = self._groups_of(c, "the image's channel count", who)
        mg = self._groups_of(m, "the kernel's output channel count", who)
        if w.shape[1] != cg:
            raise ValueError(f"{who}: the kernel expects {w.shape[1]} input channels per group "
                             f"but the image has {c} channels in {self.groups} group(s); image "
                             f"shape {x.shape}, kernel shape {w.shape}")
        pads, out_sp = self.out_size(x.shape[2:], kernel, who)
        out = np.empty((n, m, *out_sp), dtype=self.dtype)
        npix, kg = int(np.prod(out_sp)), cg * int(np.prod(kernel))
        if out.size == 0:
            return out
        if kg == 0:
            out.fill(0)
            return out
        wmat = np.ascontiguousarray(w).reshape(m, kg)
        out3 = out.reshape(n, m, npix)
        geo = self.geometry(c, x.shape[2:], kernel, pads, out_sp)
        for n0, b, col in self.column_blocks(n, kg * self.groups, npix):
            self.run_images(self.im2col(x), (x, col, geo, n0), b, col.size)
            for g in range(self.groups):
                prod = blas_dot(wmat[g * mg:(g + 1) * mg], col[g * kg:(g + 1) * kg])
                out3[n0:n0 + b, g * mg:(g + 1) * mg] = \
                    prod.reshape(mg, b, npix).transpose(1, 0, 2)
        return out

    def grad_weights(self, x: Any, top: Any, shape: Any) -> np.ndarray:
        who, nd = "CorrMM_gradWeights", self.nd
        x = self._array(x, nd + 2, "the image", who)
        top = self._array(top, nd + 2, "the output gradient", who)
        kernel = tuple(int(k) for k in np.asarray(shape).ravel())
        if len(kernel) != nd:
            raise ValueError(f"{who}: the kernel shape {kernel} must have {nd} entries")
        n, c = x.shape[:2]
        m = top.shape[1]
        cg = self._groups_of(c, "the image's channel count", who)
        mg = self._groups_of(m, "the output gradient's channel count", who)
        pads, out_sp = self.out_size(x.shape[2:], kernel, who)
        if top.shape[0] != n or tuple(top.shape[2:]) != out_sp:
            raise ValueError(f"{who}: the output gradient has shape {top.shape}, but an image "
                             f"of shape {x.shape} with kernel {kernel} gives ({n}, {m}, "
                             f"{', '.join(map(str, out_sp))})")
        npix, kg = int(np.prod(out_sp)), cg * int(np.prod(kernel))
        gw = np.zeros((m, kg), dtype=self.dtype)
        if n and npix and kg:
            top3 = top.reshape(n, m, npix)
            geo = self.geometry(c, x.shape[2:], kernel, pads, out_sp)
            for n0, b, col in self.column_blocks(n, kg * self.groups, npix):
                self.run_images(self.im2col(x), (x, col, geo, n0), b, col.size)
                for g in range(self.groups):
                    t = top3[n0:n0 + b, g * mg:(g + 1) * mg].transpose(1, 0, 2).reshape(
                        mg, b * npix)
                    gw[g * mg:(g + 1) * mg] += blas_dot(t, col[g * kg:(g + 1) * kg].T)
        gw = gw.reshape(m, cg, *kernel)
        if self.flipped_output:  # same values; reversing the result gives a C-contiguous view
            rev = (Ellipsis,) + (slice(None, None, -1),) * nd
            gw = np.ascontiguousarray(gw[rev])[rev]
        return gw

    def grad_inputs(self, w: Any, top: Any, shape: Any) -> np.ndarray:
        who, nd = "CorrMM_gradInputs", self.nd
        w = self._array(w, nd + 2, "the kernel", who)
        top = self._array(top, nd + 2, "the output gradient", who)
        image = tuple(int(i) for i in np.asarray(shape).ravel())
        if len(image) != nd:
            raise ValueError(f"{who}: the image shape {image} must have {nd} entries")
        n, m = top.shape[:2]
        cg, kernel = w.shape[1], w.shape[2:]
        c = cg * self.groups
        mg = self._groups_of(m, "the output gradient's channel count", who)
        if w.shape[0] != m:
            raise ValueError(f"{who}: the kernel has {w.shape[0]} output channels but the "
                             f"output gradient has {m}")
        pads, out_sp = self.out_size(image, kernel, who)
        if tuple(top.shape[2:]) != out_sp:
            raise ValueError(f"{who}: the output gradient has spatial shape {top.shape[2:]}, "
                             f"but an image of spatial shape {image} with a kernel of shape "
                             f"{w.shape} gives {out_sp}")
        npix, kg = int(np.prod(out_sp)), cg * int(np.prod(kernel))
        if not (n and npix and kg):
            return np.zeros((n, c, *image), dtype=self.dtype)
        gx = np.empty((n, c, *image), dtype=self.dtype)
        wmat = np.ascontiguousarray(w).reshape(m, kg)
        top3 = top.reshape(n, m, npix)
        geo = self.geometry(c, image, kernel, pads, out_sp)
        for n0, b, col in self.column_blocks(n, kg * self.groups, npix):
            for g in range(self.groups):
                t = top3[n0:n0 + b, g * mg:(g + 1) * mg].transpose(1, 0, 2).reshape(
                    mg, b * npix)
                blas_dot(wmat[g * mg:(g + 1) * mg].T, t, out=col[g * kg:(g + 1) * kg])
            self.run_images("col2im", (col, gx, geo, n0), b, col.size)
        return gx
