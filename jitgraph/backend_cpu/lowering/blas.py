"""BLAS ops (``Dot``, ``Dot22``, ``Gemv``, ``Gemm``, ``Ger``) through NumPy's BLAS, called from
the driver.

Choice: the matrix products call ``numpy.dot`` (NumPy's bundled OpenBLAS, or whatever BLAS the
installed NumPy links) from Python, not from inside a Numba kernel. Numba's own ``np.dot`` needs
SciPy at run time and, as PyTensor's Numba backend shows, is much slower for transposed
matrix-vector products; NumPy dispatches every layout (transposed views included) to the right
BLAS call and adds no dependency. With ``allow_gc=False`` the product is written with
``np.dot(..., out=buffer)`` into a buffer kept between calls. The ``beta * Z + alpha * (X @ Y)``
part of Gemm/Gemv and the rank-1 update of Ger are one-pass Numba loops (no temporary for
``alpha * X @ Y`` or ``outer(x, y)``); ``beta == 0`` ignores the values of ``Z`` as BLAS does.
Complex dtypes and ``BatchedDot`` run their ``perform`` (NumPy's ``matmul``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.tensor.linalg import blas as B

from jitgraph.backend_cpu.codegen import compile_ahead
from jitgraph.backend_cpu.runtime import blas_threads, cblas
from jitgraph.backend_cpu.codegen.kernels import KernelSource, kernel_module
from jitgraph.backend_cpu.lowering.registry import BLAS, Lowered, register_lowering
from jitgraph.backend_cpu.runtime.driver import _perform_lowering

_REAL = ("float32", "float64")

# The Gemm/Gemv epilogue (beta*z + alpha*t) and Ger's rank-1 update are small generated kernels
# with explicit signatures, kept in the kernel cache like every other kernel: a new process loads
# them instead of compiling them.
_HELPER_BODIES = {
    "axpby1": ("z, t, alpha, beta, out", (1, 1, 0, 0, 1),
               ["for i in range(out.shape[0]):",
                "    out[i] = beta * z[i] + alpha * t[i]"]),
    "axpby2": ("z, t, alpha, beta, out", (2, 2, 0, 0, 2),
               ["for i in range(out.shape[0]):",
                "    for j in range(out.shape[1]):",
                "        out[i, j] = beta * z[i, j] + alpha * t[i, j]"]),
    "ger": ("a, alpha, x, y, out", (2, 0, 1, 1, 2),
            ["for i in range(out.shape[0]):",
             "    ax = alpha * x[i]",
             "    for j in range(out.shape[1]):",
             "        out[i, j] = a[i, j] + ax * y[j]"]),
}


def _helper_source(options: Any) -> KernelSource:
    lines = ["from numba import types as _nt", ""]
    entries = []
    for name, (args, ranks, body) in _HELPER_BODIES.items():
        for dtype in _REAL:
            entry = f"{name}_{dtype}"
            entries.append(entry)
            n_args = len(ranks)
            # Every array but the last (the output) is only read: accept read-only arrays too.
            types = [f"_nt.{dtype}" if r == 0 else
                     f"_nt.Array(_nt.{dtype}, {r}, 'A', readonly={k < n_args - 1})"
                     for k, r in enumerate(ranks)]
            lines += [f"def {entry}({args}):", *[f"    {b}" for b in body],
                      f"SIG_{entry} = _nt.void({', '.join(types)})", ""]
    return KernelSource(key=("blas-helpers", 1, options.key()), source="\n".join(lines),
                        entries=tuple(entries), options=options,
                        description="Gemm/Gemv epilogue and Ger update")


class Helpers:
    """The helper kernels compiled with one set of codegen options (bound when a program is
    built, so a call resolves a helper with one dict lookup)."""

    _by_options: dict[Any, "Helpers"] = {}

    def __init__(self, options: Any) -> None:
        self.options = options
        self._fns: dict[tuple, Any] = {}

    @classmethod
    def of(cls, options: Any) -> "Helpers":
        found = cls._by_options.get(options)
        if found is None:
            found = cls._by_options[options] = cls(options)
        return found

    def __reduce__(self) -> tuple:  # a stored program refers to this process's instance
        return Helpers.of, (self.options,)

    def get(self, name: str, dtype: np.dtype) -> Any:
        fn = self._fns.get((name, dtype))  # keyed by the dtype object: dtype.name is slow
        if fn is None:
            entry = f"{name}_{np.dtype(dtype).name}"
            fn = self._fns[(name, dtype)] = kernel_module(
                _helper_source(self.options)).get(entry)
        return fn


def finish(z: np.ndarray, alpha: np.ndarray, t: np.ndarray, beta: np.ndarray, inplace: bool,
           helpers: Helpers) -> np.ndarray:
    """``beta * z + alpha * t`` (``t`` is a fresh product and may be overwritten)."""
    if z.shape != t.shape:
        raise ValueError(f"gemm/gemv: shapes do not match: {z.shape} vs product {t.shape}")
    a = alpha.item()
    b = beta.item()
    target = z if inplace else t
    if b == 0:
        if a != 1:
            np.multiply(t, a, out=target)
        elif inplace:
            np.copyto(z, t)
        return target
    helpers.get("axpby1" if t.ndim == 1 else "axpby2", t.dtype)(
        z, t, t.dtype.type(a), t.dtype.type(b), target)
    return target


def gemm_inplace(z: np.ndarray, alpha: np.ndarray, x: np.ndarray, y: np.ndarray,
                 beta: np.ndarray, helpers: Helpers) -> np.ndarray:
    """``z = beta * z + alpha * x @ y`` in place (2-d): one BLAS call accumulating into ``z``
    (:mod:`.cblas`), else a product then the epilogue pass."""
    if cblas.gemm(alpha.item(), x, y, beta.item(), z):
        return z
    return finish(z, alpha, np.dot(x, y), beta, True, helpers)


def ger(a: np.ndarray, alpha: np.ndarray, x: np.ndarray, y: np.ndarray, out: np.ndarray | None,
        helpers: Helpers) -> np.ndarray:
    """``a + alpha * outer(x, y)``, into ``a`` when ``out`` is None."""
    if a.shape != (x.shape[0], y.shape[0]):
        raise ValueError(f"ger: shapes do not match: A {a.shape}, x {x.shape}, y {y.shape}")
    target = a if out is None else out
    helpers.get("ger", a.dtype)(a, a.dtype.type(alpha.item()), x, y, target)
    return target


def _product_shape(a: str, b: str, nd_a: int, nd_b: int) -> str:
    dims = ([f"{a}.shape[0]"] if nd_a == 2 else []) + ([f"{b}.shape[1]"] if nd_b == 2 else [])
    return f"({', '.join(dims)},)" if dims else "()"


def _dot_lines(nc: Any, a: str, b: str, nd_a: int, nd_b: int, out_dtype: str, k: int,
               use_out: bool) -> tuple[list[str], str]:
    """``dot(a, b)``, into a kept buffer when allowed (nogc) and valid for ``out=``, or into
    the array the caller put in the output's destination cell when it fits."""
    dot = nc.b.ref(blas_threads.dot, "dot")  # on the BLAS threads that pay, see blas_threads
    dest = nc.dest(k) if use_out and (nd_a, nd_b) != (1, 1) else None
    if dest is not None:
        o, shp, dt = nc.local("o"), nc.local("shp"), nc.b.dtype(out_dtype)
        return [f"{shp} = {_product_shape(a, b, nd_a, nd_b)}", f"{o} = {dest}[0]",
                f"if {o} is not None and {o}.shape == {shp} and {o}.dtype == {dt} "
                f"and {o}.flags.c_contiguous:",
                f"    {dot}({a}, {b}, out={o})",
                "else:",
                f"    {o} = {dot}({a}, {b})"], o
    if use_out and nc.can_reuse(k) and (nd_a, nd_b) != (1, 1):
        alloc, o = nc.alloc(k, _product_shape(a, b, nd_a, nd_b), out_dtype)
        return alloc + [f"{dot}({a}, {b}, out={o})"], o
    o = nc.local("p")
    return [f"{o} = {dot}({a}, {b})"], o


@register_lowering(B.Dot, B.Dot22)
def lower_dot(op: Any, node: Any, ctx: Any) -> Lowered | None:
    a_t, b_t = node.inputs
    out_dtype = node.outputs[0].dtype
    same = a_t.dtype == b_t.dtype == out_dtype and out_dtype in _REAL

    def emit(nc: Any) -> list[str]:
        a, b = nc.local("a"), nc.local("b")
        lines = [f"{a} = {nc.inp(0)}", f"{b} = {nc.inp(1)}"]
        dl, o = _dot_lines(nc, a, b, a_t.ndim, b_t.ndim, out_dtype, 0, same)
        lines += dl
        if not same:
            lines.append(f"{o} = np.asarray({o}).astype({nc.b.dtype(out_dtype)}, copy=False)")
        elif a_t.ndim == b_t.ndim == 1:
            lines.append(f"{o} = np.asarray({o})")
        lines.append(nc.set_out(0, o))
        return lines

    return Lowered(BLAS, emit)


@register_lowering(B.Gemm, B.Gemv)
def lower_gemm(op: Any, node: Any, ctx: Any) -> Lowered | None:
    z_t, _, x_t, y_t, _ = node.inputs
    if z_t.dtype not in _REAL:
        return None
    fin = ctx.ref(finish, "finish")
    helpers = ctx.ref(Helpers.of(ctx.options), "blas_helpers")
    direct = ctx.ref(gemm_inplace, "gemm_inplace") if op.inplace and z_t.ndim == 2 else None
    beta = ctx.known_value(node.inputs[4])
    if direct is None and (beta is None or np.any(beta != 0)):
        # the epilogue runs: compiled with the program
        name = "axpby1" if z_t.ndim == 1 else "axpby2"
        compile_ahead.want(kernel_module(_helper_source(ctx.options)), f"{name}_{z_t.dtype}")

    def emit(nc: Any) -> list[str]:
        z, alpha, x, y, beta = (nc.local(n) for n in ("z", "alpha", "x", "y", "beta"))
        lines = [f"{v} = {nc.inp(j)}" for j, v in enumerate((z, alpha, x, y, beta))]
        if direct is not None:  # BLAS accumulates into z: no temporary, no epilogue pass
            return lines + [nc.set_out(0, f"{direct}({z}, {alpha}, {x}, {y}, {beta}, "
                                          f"{helpers})")]
        # The product gets its own buffer: in place, the result lands in z instead.
        dl, t = _dot_lines(nc, x, y, x_t.ndim, y_t.ndim, z_t.dtype, 0, not op.inplace)
        lines += dl
        lines.append(nc.set_out(0, f"{fin}({z}, {alpha}, {t}, {beta}, {op.inplace}, {helpers})"))
        return lines

    return Lowered(BLAS, emit)


@register_lowering(B.Ger)
def lower_ger(op: Any, node: Any, ctx: Any) -> Lowered | None:
    a_t = node.inputs[0]
    if a_t.dtype not in _REAL:
        return None
    fn = ctx.ref(ger, "ger")
    helpers = ctx.ref(Helpers.of(ctx.options), "blas_helpers")

    def emit(nc: Any) -> list[str]:
        a, alpha, x, y = (nc.local(n) for n in ("A", "alpha", "x", "y"))
        lines = [f"{v} = {nc.inp(j)}" for j, v in enumerate((a, alpha, x, y))]
        if op.inplace:
            target = "None"
        else:
            alloc, target = nc.alloc(0, f"{a}.shape", a_t.dtype)
            lines += alloc
        lines.append(nc.set_out(0, f"{fn}({a}, {alpha}, {x}, {y}, {target}, {helpers})"))
        return lines

    return Lowered(BLAS, emit)


@register_lowering(B.BatchedDot)
def lower_batched_dot(op: Any, node: Any, ctx: Any) -> Lowered:
    lw = _perform_lowering(node, registered=True)
    lw.kind = BLAS
    return lw
