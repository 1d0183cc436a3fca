"""Generated loops over compressed sparse storage (csr/csc ``data``, ``indices``, ``indptr``)
and the runner the driver calls for the array-level sparse ops
(:mod:`jitgraph.sparse.csx_ops`).

One kernel module per codegen options holds every entry, named ``<kernel>_<format>_<dtype>``;
an entry compiles the first time it is called and lands in the compiledir like every other
kernel (a new process loads it). Indices are int32 (what ``csm_properties`` gives). Every
entry but the csc matrix-vector product takes the ``[start, stop)`` range of its outer axis,
so that ``openmp`` splits it across threads:

* ``spmm``: ``A @ B`` -- csr: rows of A (each output row written by one thread); csc: columns of
  B (a scatter into the output rows, so threads split the dense columns instead);
* ``spmv``: ``A @ b`` for a vector (csr only in parallel);
* ``sdgrad``: ``dot(G[i, :], B[j, :])`` at each stored (i, j);
* ``mulsd``/``mulsv``/``addsv``: a new data array from the stored values and a dense operand;
* ``sampling``: ``data * dot(X[i, :], Y[j, :])`` at each stored (i, j);
* ``addsd``: stored values scattered into (a copy of) a dense matrix.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import numpy as np

from jitgraph.backend_cpu.codegen.kernels import KernelSource, kernel_module
from jitgraph.backend_cpu.runtime.parallel import run_chunks
from jitgraph.sparse.scipy_support import format_class

DTYPES = ("float32", "float64")
FORMATS = ("csr", "csc")


def _position(fmt: str) -> list[str]:
    """Lines binding ``i`` (row) and ``j`` (column) of stored value ``k`` in outer slot ``o``."""
    return (["i = o", "j = indices[k]"] if fmt == "csr" else ["i = indices[k]", "j = o"])


def _outer_loop(fmt: str, bound: str | None, body: list[str]) -> list[str]:
    """Loops over the stored values; an index outside ``[0, bound)`` sets ``flags[0]`` and is
    skipped (the runner then raises: the kernels never read or write out of bounds)."""
    inner = "j" if fmt == "csr" else "i"
    check = [] if bound is None else [f"if {inner} < 0 or {inner} >= {bound}:",
                                      "    flags[0] = 1", "    continue"]
    return (["for o in range(start, stop):",
             "    for k in range(indptr[o], indptr[o + 1]):"]
            + [f"        {line}" for line in _position(fmt) + check + body])


_SPMM = {
    "csr": ["for o in range(start, stop):",
            "    for c in range(out.shape[1]):",
            "        out[o, c] = 0",
            "    for k in range(indptr[o], indptr[o + 1]):",
            "        v = data[k]",
            "        j = indices[k]",
            "        if j < 0 or j >= b.shape[0]:",
            "            flags[0] = 1",
            "            continue",
            "        for c in range(out.shape[1]):",
            "            out[o, c] += v * b[j, c]"],
    "csc": ["for o in range(indptr.shape[0] - 1):",
            "    for k in range(indptr[o], indptr[o + 1]):",
            "        v = data[k]",
            "        i = indices[k]",
            "        if i < 0 or i >= out.shape[0]:",
            "            flags[0] = 1",
            "            continue",
            "        for c in range(start, stop):",
            "            out[i, c] += v * b[o, c]"],
}
_SPMV = {
    "csr": ["for o in range(start, stop):",
            "    s = 0.0",
            "    for k in range(indptr[o], indptr[o + 1]):",
            "        j = indices[k]",
            "        if j < 0 or j >= b.shape[0]:",
            "            flags[0] = 1",
            "            continue",
            "        s += data[k] * b[j]",
            "    out[o] = s"],
    "csc": ["for o in range(start, stop):",
            "    bo = b[o]",
            "    for k in range(indptr[o], indptr[o + 1]):",
            "        i = indices[k]",
            "        if i < 0 or i >= out.shape[0]:",
            "            flags[0] = 1",
            "            continue",
            "        out[i] += data[k] * bo"],
}
#: the dense extent the stored index (column for csr, row for csc) addresses, per kernel
_BOUNDS = {
    "sdgrad": {"csr": "b.shape[0]", "csc": "g.shape[0]"},
    "mulsd": {"csr": "y.shape[1]", "csc": "y.shape[0]"},
    "mulsv": {"csr": "y.shape[0]", "csc": None},
    "addsv": {"csr": "y.shape[0]", "csc": None},
    "sampling": {"csr": "b.shape[0]", "csc": "g.shape[0]"},
    "addsd": {"csr": "out.shape[1]", "csc": "out.shape[0]"},
}


# kernel name -> (arguments, ranks (flags: -1; start, stop: 0), body) for one format
def _kernels(fmt: str) -> dict[str, tuple[str, tuple[int, ...], list[str]]]:
    dot_rows = ["s = 0.0", "for c in range(g.shape[1]):", "    s += g[i, c] * b[j, c]"]

    def loop(kernel: str, body: list[str]) -> list[str]:
        return _outer_loop(fmt, _BOUNDS[kernel][fmt], body)

    return {
        "spmm": ("data, indices, indptr, b, out, flags, start, stop", (1, 1, 1, 2, 2, -1, 0, 0),
                 _SPMM[fmt]),
        "spmv": ("data, indices, indptr, b, out, flags, start, stop", (1, 1, 1, 1, 1, -1, 0, 0),
                 _SPMV[fmt]),
        "sdgrad": ("indices, indptr, b, g, out, flags, start, stop", (1, 1, 2, 2, 1, -1, 0, 0),
                   loop("sdgrad", dot_rows + ["out[k] = s"])),
        "mulsd": ("data, indices, indptr, y, out, flags, start, stop", (1, 1, 1, 2, 1, -1, 0, 0),
                  loop("mulsd", ["out[k] = data[k] * y[i, j]"])),
        "mulsv": ("data, indices, indptr, y, out, flags, start, stop", (1, 1, 1, 1, 1, -1, 0, 0),
                  loop("mulsv", ["out[k] = data[k] * y[j]"])),
        "addsv": ("data, indices, indptr, y, out, flags, start, stop", (1, 1, 1, 1, 1, -1, 0, 0),
                  loop("addsv", ["out[k] = data[k] + y[j]"])),
        "sampling": ("g, b, data, indices, indptr, out, flags, start, stop",
                     (2, 2, 1, 1, 1, 1, -1, 0, 0),
                     loop("sampling", dot_rows + ["out[k] = s * data[k]"])),
        "addsd": ("data, indices, indptr, out, flags, start, stop", (1, 1, 1, 2, -1, 0, 0),
                  loop("addsd", ["out[i, j] += data[k]"])),
    }


#: which argument of each kernel is written (the others are declared read-only)
_OUTPUT_ARG = {"spmm": 4, "spmv": 4, "sdgrad": 4, "mulsd": 4, "mulsv": 4, "addsv": 4,
               "sampling": 5, "addsd": 3}
#: arguments holding indices (int32), by position
_INDEX_ARGS = {"spmm": (1, 2), "spmv": (1, 2), "sdgrad": (0, 1), "mulsd": (1, 2),
               "mulsv": (1, 2), "addsv": (1, 2), "sampling": (3, 4), "addsd": (1, 2)}


def _arg_type(kernel: str, k: int, rank: int, dtype: str) -> str:
    if rank == 0:
        return "_nt.int64"
    if rank == -1:  # the flags array
        return "_nt.Array(_nt.int64, 1, 'C')"
    base = "_nt.int32" if k in _INDEX_ARGS[kernel] else f"_nt.{dtype}"
    readonly = k != _OUTPUT_ARG[kernel]
    return f"_nt.Array({base}, {rank}, 'C', readonly={readonly})"


@functools.cache
def sparse_kernels_source(options: Any) -> KernelSource:
    """Every sparse kernel for every format and float dtype, in one module."""
    lines = ["from numba import types as _nt", ""]
    entries = []
    for fmt in FORMATS:
        for name, (args, ranks, body) in _kernels(fmt).items():
            for dtype in DTYPES:
                entry = f"{name}_{fmt}_{dtype}"
                entries.append(entry)
                types = ", ".join(_arg_type(name, k, r, dtype) for k, r in enumerate(ranks))
                lines += [f"def {entry}({args}):", *[f"    {b}" for b in body],
                          f"SIG_{entry} = _nt.void({types})", ""]
    source = "\n".join(lines)
    # the key names the source's digest: an edited template never meets an old cache entry
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    return KernelSource(key=("sparse-csx", digest, options.key()), source=source,
                        entries=tuple(entries), options=options,
                        description="sparse csr/csc loops")


class SparseKernels:
    """The sparse entries compiled with one set of codegen options, and the functions the
    driver calls (they convert the operands, allocate the output and split the loop)."""

    _by_options: dict[Any, SparseKernels] = {}

    def __init__(self, options: Any, nthreads: int = 1, minsize: int = 0) -> None:
        self.options = options
        self.nthreads = nthreads
        self.minsize = minsize
        self._fns: dict[str, Any] = {}

    @classmethod
    def of(cls, options: Any, nthreads: int = 1, minsize: int = 0) -> SparseKernels:
        key = (options, nthreads, minsize)
        found = cls._by_options.get(key)
        if found is None:
            found = cls._by_options[key] = cls(options, nthreads, minsize)
        return found

    def __reduce__(self) -> tuple:  # a stored program refers to this process's instance
        return SparseKernels.of, (self.options, self.nthreads, self.minsize)

    def entry(self, name: str) -> Any:
        fn = self._fns.get(name)
        if fn is None:
            fn = self._fns[name] = kernel_module(sparse_kernels_source(self.options)).get(name)
        return fn

    def _run(self, name: str, args: tuple, outer: int, work: int, parallel: bool = True
             ) -> None:
        """``name(*args, flags, start, stop)`` over ``[0, outer)``, on all threads when
        allowed and worth it; a ValueError when a stored index was out of range."""
        fn = self.entry(name)
        flags = np.zeros(1, dtype=np.int64)
        if parallel and self.nthreads > 1 and work >= self.minsize and outer > 1:
            run_chunks(fn, args + (flags,), outer, self.nthreads)
        else:
            fn(*args, flags, 0, outer)
        if flags[0]:
            raise ValueError("sparse operand: a stored index is outside the dense operand's "
                             "extent (the shapes do not match)")

    # -- the operations ---------------------------------------------------------------------
    def spmm(self, fmt: str, dtype: str, data: np.ndarray, indices: np.ndarray,
             indptr: np.ndarray, n_rows: Any, b: np.ndarray) -> np.ndarray:
        """``A @ b`` for the ``fmt`` matrix A (``n_rows`` rows) and a dense ``b``."""
        data, b = _cast(data, dtype), _cast(b, dtype)
        indices, indptr = _index(indices), _index(indptr)
        n_outer = indptr.shape[0] - 1
        n_inner = n_outer if fmt == "csr" else int(n_rows)
        if fmt == "csc" and n_outer != b.shape[0]:
            raise ValueError(f"sparse product: the csc matrix has {n_outer} columns but the "
                             f"dense operand has {b.shape[0]} rows")
        if b.ndim == 2 and b.shape[1] == 1:  # one column: the matrix-vector loop
            return self._spmv(fmt, dtype, data, indices, indptr, n_inner, n_outer,
                              b.reshape(-1)).reshape(n_inner, 1)
        if b.ndim == 1:
            return self._spmv(fmt, dtype, data, indices, indptr, n_inner, n_outer, b)
        if fmt == "csc" and b.shape[1] >= _CSC_TO_CSR_MIN_COLUMNS:
            # The row loop writes each output row once (contiguous, in cache) where the
            # column loop scatters into random rows: one O(nnz) pass re-compressing the
            # matrix by rows costs less than the scattered writes (and splits by rows).
            data, indices, indptr = _to_csr(data, indices, indptr, n_inner, n_outer)
            fmt, n_outer = "csr", n_inner
        if fmt == "csr":
            out = np.empty((n_inner, b.shape[1]), dtype=dtype)
            self._run(f"spmm_csr_{dtype}", (data, indices, indptr, b, out), n_outer,
                      data.size * b.shape[1])
        else:
            out = np.zeros((n_inner, b.shape[1]), dtype=dtype)
            self._run(f"spmm_csc_{dtype}", (data, indices, indptr, b, out), b.shape[1],
                      data.size * b.shape[1])
        return out

    def _spmv(self, fmt: str, dtype: str, data: np.ndarray, indices: np.ndarray,
              indptr: np.ndarray, n_inner: int, n_outer: int, b: np.ndarray) -> np.ndarray:
        if fmt == "csr":
            out = np.empty(n_inner, dtype=dtype)
            self._run(f"spmv_csr_{dtype}", (data, indices, indptr, b, out), n_outer, data.size)
        else:  # a scatter into the output: one thread
            out = np.zeros(n_inner, dtype=dtype)
            self._run(f"spmv_csc_{dtype}", (data, indices, indptr, b, out), n_outer, data.size,
                      parallel=False)
        return out

    def sdgrad(self, fmt: str, dtype: str, indices: np.ndarray, indptr: np.ndarray,
               b: np.ndarray, g: np.ndarray) -> np.ndarray:
        """``dot(g[i, :], b[j, :])`` at each stored (i, j)."""
        b, g = _cast(b, dtype), _cast(g, dtype)
        indices, indptr = _index(indices), _index(indptr)
        _check_outer(fmt, indptr, g.shape[0], b.shape[0])
        if g.shape[1] != b.shape[1]:
            raise ValueError(f"structured_dot gradient: the output gradient has {g.shape[1]} "
                             f"columns but b has {b.shape[1]}")
        out = np.empty(indices.shape[0], dtype=dtype)
        self._run(f"sdgrad_{fmt}_{dtype}", (indices, indptr, b, g, out),
                  indptr.shape[0] - 1, out.size * max(1, b.shape[1]))
        return out

    def gather(self, kernel: str, fmt: str, dtype: str, data: np.ndarray,
               indices: np.ndarray, indptr: np.ndarray, y: np.ndarray) -> np.ndarray:
        """A new data array: ``kernel`` (mulsd, mulsv, addsv) of the values and ``y``."""
        data, y = _cast(data, dtype), _cast(y, dtype)
        indices, indptr = _index(indices), _index(indptr)
        if y.ndim == 2:
            _check_outer(fmt, indptr, *y.shape)
        else:
            _check_outer(fmt, indptr, 1 << 62, y.shape[0])
        out = np.empty(data.shape[0], dtype=dtype)
        self._run(f"{kernel}_{fmt}_{dtype}", (data, indices, indptr, y, out),
                  indptr.shape[0] - 1, out.size)
        return out

    def sampling(self, fmt: str, dtype: str, x: np.ndarray, y: np.ndarray, data: np.ndarray,
                 indices: np.ndarray, indptr: np.ndarray) -> np.ndarray:
        """``data * dot(x[i, :], y[j, :])`` at each stored (i, j)."""
        x, y, data = _cast(x, dtype), _cast(y, dtype), _cast(data, dtype)
        indices, indptr = _index(indices), _index(indptr)
        _check_outer(fmt, indptr, x.shape[0], y.shape[0])
        if x.shape[1] != y.shape[1]:
            raise ValueError(f"sampling_dot: x has {x.shape[1]} columns but y has "
                             f"{y.shape[1]}")
        out = np.empty(data.shape[0], dtype=dtype)
        self._run(f"sampling_{fmt}_{dtype}", (x, y, data, indices, indptr, out),
                  indptr.shape[0] - 1, out.size * max(1, x.shape[1]))
        return out

    def addsd(self, fmt: str, dtype: str, data: np.ndarray, indices: np.ndarray,
              indptr: np.ndarray, y: np.ndarray) -> np.ndarray:
        """A copy of ``y`` with the stored values added at their positions."""
        data = _cast(data, dtype)
        indices, indptr = _index(indices), _index(indptr)
        out = np.array(y, dtype=dtype, order="C")
        n_outer = indptr.shape[0] - 1
        if n_outer != out.shape[0 if fmt == "csr" else 1]:
            raise ValueError(f"sparse + dense: the sparse matrix's shape does not match the "
                             f"dense operand's {out.shape}")
        self._run(f"addsd_{fmt}_{dtype}", (data, indices, indptr, out), n_outer, data.size)
        return out


#: dense operands with at least this many columns make a csc product go through csr
_CSC_TO_CSR_MIN_COLUMNS = 4


def _to_csr(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, n_rows: int,
            n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The csr arrays of the csc matrix ``(data, indices, indptr)`` (SciPy's conversion: the
    values are scipy.sparse matrices, so SciPy is loaded)."""
    csr = format_class("csc")((data, indices, indptr), shape=(n_rows, n_cols)).tocsr()
    return csr.data, _index(csr.indices), _index(csr.indptr)


def _cast(a: np.ndarray, dtype: str) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=dtype)


def _index(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int32)


def _check_outer(fmt: str, indptr: np.ndarray, n_rows: int, n_cols: int) -> None:
    """The compressed axis (rows of csr, columns of csc) must fit ``n_rows x n_cols`` (the
    stored indices are checked by the kernels themselves)."""
    outer = n_rows if fmt == "csr" else n_cols
    if indptr.shape[0] - 1 > outer:
        what = "rows" if fmt == "csr" else "columns"
        raise ValueError(f"sparse operand: {indptr.shape[0] - 1} {what} do not fit the dense "
                         f"operand's {n_rows} x {n_cols}")
