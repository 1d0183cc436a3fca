"""Generated pooling kernels (1 to 3 pooled axes): forward max and sum/average, the max and
average gradients, and the gradient of the max gradient.

Every kernel sees its arrays as ``(batch, *spatial)`` (the driver folds the leading axes into
one) and loops over the ``[start, stop)`` range of that batch axis, which is how
:func:`.parallel.run_chunks` splits it across threads. The geometry (image size, window,
stride, padding, output size) is a run-time ``int64`` array, so one compiled entry per (kind,
rank, dtype) serves every pooling; the average's divisor kind is a run-time argument (0: sum,
1: count padding, 2: do not). Window ``o`` covers ``[o*T - P, o*T - P + W)`` clipped to the
image; the pixels of its clipped range are visited in row-major order, as the NumPy reference
visits them, so sums round the same way.
"""

from __future__ import annotations

from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, numba_array_type,
                                          numba_scalar_type, signature_text)
from jitgraph.backend_cpu.options import CodegenOptions

#: Bumped when the generated kernels change.
POOL_CODEGEN_VERSION = 4

#: divisor kinds of the average kernels
SUM, INCLUDE_PAD, EXCLUDE_PAD = 0, 1, 2


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def open(self, line: str) -> None:
        self(line)
        self.depth += 1


def _prologue(w: _Lines, nd: int, fixed: tuple | None) -> None:
    """Name the geometry; with ``fixed = (ws, stride)`` (no padding, whole windows) the window
    and stride are literals, so LLVM unrolls the loops over a window."""
    names = [f"{p}{a}" for p in "SWTPO" for a in range(nd)]
    for i, name in enumerate(names):
        if fixed is not None and name[0] in "WTP":
            value = 0 if name[0] == "P" else fixed["WT".index(name[0])][int(name[1:])]
            w(f"{name} = {value}")
        else:
            w(f"{name} = geo[{i}]")


def _windows(w: _Lines, nd: int, full: bool) -> None:
    """Open the loops over the batch and the windows; name each window's clipped range
    (``full``: windows never leave the image, no clipping)."""
    w.open("for b in range(start, stop):")
    w("ub = np.uint64(b)")
    for a in range(nd):
        w.open(f"for o{a} in range(O{a}):")
        w(f"uo{a} = np.uint64(o{a})")
        w(f"s{a} = o{a} * T{a} - P{a}")
        w(f"e{a} = s{a} + W{a}")
        if full:
            w(f"lo{a} = s{a}")
            w(f"hi{a} = e{a}")
        else:
            w(f"lo{a} = s{a} if s{a} > 0 else 0")
            w(f"hi{a} = e{a} if e{a} < S{a} else S{a}")


def _pixels(w: _Lines, nd: int) -> str:
    """Open the loops over one window's pixels; return the pixel's index (unsigned indices:
    Numba then emits no negative-index wraparound)."""
    for a in range(nd):
        w.open(f"for i{a} in range(lo{a}, hi{a}):")
    return ", ".join(["ub"] + [f"np.uint64(i{a})" for a in range(nd)])


def _count(w: _Lines, nd: int) -> None:
    """``cnt``: the window's divisor for the divisor kind ``kind``."""
    w("cnt = 1.0")
    w("if kind == 1:")
    for a in range(nd):
        w(f"    top{a} = e{a} if e{a} < S{a} + P{a} else S{a} + P{a}")
        w(f"    cnt *= top{a} - s{a}")
    w("elif kind == 2:")
    for a in range(nd):
        w(f"    cnt *= hi{a} - lo{a}")


def _zero(w: _Lines, nd: int, name: str) -> None:
    """Zero ``name[b]`` for the batch range (gradients accumulate into it)."""
    w.open("for b in range(start, stop):")
    for a in range(nd):
        w.open(f"for z{a} in range(S{a}):")
    index = ", ".join(["np.uint64(b)"] + [f"np.uint64(z{a})" for a in range(nd)])
    w(f"{name}[{index}] = 0")
    w.depth = 1


def _disjoint_gradient(w: _Lines, nd: int, kind: str, dtype: str) -> None:
    """The gradients for whole, non-overlapping windows: each covered pixel written once, in
    window order (no accumulation, no zeroing first), then the pixels no window covers (a
    tail, or gaps between windows) set to 0."""
    w.open("for b in range(start, stop):")
    w("ub = np.uint64(b)")
    for a in range(nd):
        w.open(f"for o{a} in range(O{a}):")
        w(f"uo{a} = np.uint64(o{a})")
        if a == nd - 1:
            out = ", ".join(["ub"] + [f"uo{k}" for k in range(nd)])
            if kind == "grad_max":
                w(f"top = m[{out}]")
                w(f"g = gz[{out}]")
            else:
                cnt = " * ".join(f"W{k}" for k in range(nd))
                w(f"cnt = 1.0 if kind == 0 else {cnt} * 1.0")
                w(f"share = np.{dtype}(np.float64(gz[{out}]) / cnt)")
        w.open(f"for r{a} in range(W{a}):")
        w(f"ui{a} = np.uint64(o{a} * T{a} + r{a})")
    pix = ", ".join(["ub"] + [f"ui{a}" for a in range(nd)])
    if kind == "grad_max":
        w(f"gx[{pix}] = g if x[{pix}] == top else np.{dtype}(0)")
    else:
        w(f"gx[{pix}] = share")
    w.depth = 1
    uncovered = " or ".join([f"O{a} * T{a} < S{a}" for a in range(nd)] + ["T{a} > W{a}".format(a=a)
                                                                          for a in range(nd)])
    w.open(f"if {uncovered}:")
    w.open("for b in range(start, stop):")
    covered = []
    for a in range(nd):
        w.open(f"for i{a} in range(S{a}):")
        covered.append(f"i{a} < O{a} * T{a} and i{a} % T{a} < W{a}")
    index = ", ".join(["np.uint64(b)"] + [f"np.uint64(i{a})" for a in range(nd)])
    w(f"if not ({' and '.join(covered)}):")
    w(f"    gx[{index}] = 0")


def _function(kind: str, nd: int, dtype: str, fixed: tuple | None) -> list[str]:
    args = {"pool_max": "x, out", "pool_avg": "x, out, kind", "grad_max": "x, m, gz, gx",
            "grad_avg": "gz, gx, kind", "grad_grad": "x, m, gg, out"}[kind]
    w = _Lines()
    w.lines.append(f"def {kind}({args}, geo, start, stop):")
    _prologue(w, nd, fixed)
    disjoint = fixed is not None and all(t >= ws for ws, t in zip(*fixed))
    if kind in ("grad_max", "grad_avg") and disjoint:
        _disjoint_gradient(w, nd, kind, dtype)
        return w.lines
    if kind in ("grad_max", "grad_avg"):
        _zero(w, nd, "gx")
    _windows(w, nd, fixed is not None)
    out = ", ".join(["ub"] + [f"uo{a}" for a in range(nd)])
    if kind == "pool_max":
        w("best = -np.inf")
        pix = _pixels(w, nd)
        w(f"v = x[{pix}]")
        w("if v > best or v != v:")
        w("    best = v")
        w.depth = 2 + nd
        w(f"out[{out}] = best")
    elif kind == "pool_avg":
        w(f"acc = np.{dtype}(0)")
        pix = _pixels(w, nd)
        w(f"acc += x[{pix}]")
        w.depth = 2 + nd
        _count(w, nd)
        w(f"out[{out}] = np.{dtype}(np.float64(acc) / cnt)")
    elif kind == "grad_max":
        w(f"top = m[{out}]")
        w(f"g = gz[{out}]")
        pix = _pixels(w, nd)
        w(f"if x[{pix}] == top:")
        w(f"    gx[{pix}] += g")
    elif kind == "grad_avg":
        _count(w, nd)
        w(f"share = np.{dtype}(np.float64(gz[{out}]) / cnt)")
        pix = _pixels(w, nd)
        w(f"gx[{pix}] += share")
    else:  # grad_grad
        w(f"top = m[{out}]")
        w(f"acc = np.{dtype}(0)")
        pix = _pixels(w, nd)
        w(f"if x[{pix}] == top:")
        w(f"    acc += gg[{pix}]")
        w.depth = 2 + nd
        w(f"out[{out}] = acc")
    return w.lines


def _signature(kind: str, nd: int, dtype: str) -> str:
    ro = numba_array_type(dtype, nd + 1, "A", readonly=True)
    rw = numba_array_type(dtype, nd + 1, "C")
    i64 = numba_scalar_type("int64")
    arrays = {"pool_max": [ro, rw], "pool_avg": [ro, rw, i64], "grad_max": [ro, ro, ro, rw],
              "grad_avg": [ro, rw, i64], "grad_grad": [ro, ro, ro, rw]}[kind]
    geo = numba_array_type("int64", 1, "C", readonly=True)
    return signature_text(arrays + [geo, i64, i64])


KINDS = ("pool_max", "pool_avg", "grad_max", "grad_avg", "grad_grad")


def pool_kernels_source(nd: int, dtype: str, options: CodegenOptions,
                        fixed: tuple | None = None) -> KernelSource:
    """Every pooling kernel for ``nd`` pooled axes and ``dtype`` (compiled entry by entry);
    ``fixed = (ws, stride)`` when those are constants, the padding is 0 and only whole windows
    are pooled (``ignore_border=True``)."""
    parts = [HEADER]
    for kind in KINDS:
        parts += [f"SIG_{kind} = {_signature(kind, nd, dtype)}", "",
                  *_function(kind, nd, dtype, fixed), "", ""]
    key = ("pool", POOL_CODEGEN_VERSION, nd, dtype, fixed, options.key())
    what = "" if fixed is None else f" window {fixed[0]} stride {fixed[1]}"
    return KernelSource(key, "\n".join(parts), KINDS, options, f"pooling {nd}-d {dtype}{what}")
