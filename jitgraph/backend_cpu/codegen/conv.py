"""Generated im2col and col2im kernels for N-d correlations (1 to 3 spatial axes).

``im2col`` copies the image pixels each kernel tap reads into the rows of a column matrix:
``col[(c * K0 + k0) * K1 + k1, t * P + o0 * O1 + o1] = x[n0 + t, c, o0*T0 + k0*D0 - L0,
o1*T1 + k1*D1 - L1]`` (zero outside the image), for the images ``t`` of one chunk, so that one
matrix product ``kernel (M, C*K0*K1) @ col (C*K0*K1, chunk * P)`` computes the correlation of the
whole chunk. ``col2im`` is its adjoint: it adds every column entry back onto the image pixel it
came from (the image gradient), after zeroing the chunk's images.

The geometry (channels, image size, kernel size, strides, dilations, low paddings, output
size) is a run-time ``int64`` array, so one compiled kernel per (rank, dtype) serves every
convolution. The last axis is copied in one loop over the output positions whose input lies
inside the image (computed once per row), between two loops writing zeros. The kernels take the
``[start, stop)`` range of chunk images they handle, which is how :func:`.parallel.run_chunks`
splits them across threads. ``im2col_c`` reads a C-contiguous image (no strides to multiply),
``im2col_a`` any layout.
"""

from __future__ import annotations

from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, numba_array_type,
                                          numba_scalar_type, signature_text)
from jitgraph.backend_cpu.options import CodegenOptions

#: Bumped when the generated kernels change.
CONV_CODEGEN_VERSION = 3


def _unpack(nd: int) -> list[str]:
    """Lines naming the geometry entries: C, S*, K*, T*, D*, L*, O*."""
    names = ["C"] + [f"{p}{a}" for p in "SKTDLO" for a in range(nd)]
    return [f"{name} = geo[{i}]" for i, name in enumerate(names)]


def _in_range_bounds(a: int) -> list[str]:
    """``lo{a}, hi{a}``: the outputs ``o`` whose input ``o*T + k*D - L`` lies in the image."""
    return [f"off{a} = L{a} - k{a} * D{a}",
            f"lo{a} = (off{a} + T{a} - 1) // T{a} if off{a} > 0 else 0",
            f"last{a} = S{a} - 1 + off{a}",
            f"hi{a} = last{a} // T{a} + 1 if last{a} >= 0 else 0",
            f"hi{a} = hi{a} if hi{a} < O{a} else O{a}",
            f"lo{a} = lo{a} if lo{a} < hi{a} else hi{a}"]


def _body(nd: int, adjoint: bool) -> list[str]:
    """The loops over one image ``n`` (at chunk position ``t``), indented by 2 levels."""
    lines: list[str] = []
    depth = 2

    def w(line: str) -> None:
        lines.append("    " * depth + line)

    w("row = 0")
    w("for c in range(C):")
    depth += 1
    w("uc = np.uint64(c)")
    for a in range(nd):
        w(f"for k{a} in range(K{a}):")
        depth += 1
    for a in range(nd):
        lines.extend("    " * depth + s for s in _in_range_bounds(a))
    w("dst = t * P")
    w("urow = np.uint64(row)")
    # the outer output axes: a whole row segment is zero when one of them is outside
    for a in range(nd - 1):
        w(f"for o{a} in range(O{a}):")
        depth += 1
        w(f"ui{a} = np.uint64(o{a} * T{a} - off{a})")
        cond = f"o{a} >= lo{a} and o{a} < hi{a}"
        w(f"inside{a} = {cond}" if a == 0 else f"inside{a} = inside{a - 1} and {cond}")
    last = nd - 1
    inside = f"inside{last - 1}" if nd > 1 else "True"
    # Unsigned indices: Numba then emits no negative-index wraparound, which would keep LLVM
    # from vectorising the loops. Unit stride along the last axis (the common case) gets its
    # own loop: both sides are then contiguous.
    lead = ", ".join(["un", "uc"] + [f"ui{a}" for a in range(last)])
    strided = f"x[{lead}, np.uint64(o{last} * T{last} - off{last})]"
    unit = f"x[{lead}, np.uint64(o{last} - off{last})]"
    target = f"col[urow, np.uint64(dst + o{last})]"
    w(f"if {inside}:")
    if adjoint:
        strided, unit = strided.replace("x[", "g["), unit.replace("x[", "g[")
        w(f"    if T{last} == 1:")
        w(f"        for o{last} in range(lo{last}, hi{last}):")
        w(f"            {unit} += {target}")
        w("    else:")
        w(f"        for o{last} in range(lo{last}, hi{last}):")
        w(f"            {strided} += {target}")
    else:
        w(f"    for o{last} in range(lo{last}):")
        w(f"        {target} = 0")
        w(f"    if T{last} == 1:")
        w(f"        for o{last} in range(lo{last}, hi{last}):")
        w(f"            {target} = {unit}")
        w("    else:")
        w(f"        for o{last} in range(lo{last}, hi{last}):")
        w(f"            {target} = {strided}")
        w(f"    for o{last} in range(hi{last}, O{last}):")
        w(f"        {target} = 0")
        w("else:")
        w(f"    for o{last} in range(O{last}):")
        w(f"        {target} = 0")
    w(f"dst += O{last}")
    depth = 2 + 1 + nd
    w("row += 1")
    return lines


def _zero_image(nd: int) -> list[str]:
    lines = ["        for c in range(C):"]
    depth = 3
    for a in range(nd):
        lines.append("    " * depth + f"for z{a} in range(S{a}):")
        depth += 1
    index = ", ".join(["un", "np.uint64(c)"] + [f"np.uint64(z{a})" for a in range(nd)])
    lines.append("    " * depth + f"g[{index}] = 0")
    return lines


def _function(nd: int, adjoint: bool, name: str) -> list[str]:
    args = "col, g, geo, n0, start, stop" if adjoint else "x, col, geo, n0, start, stop"
    lines = [f"def {name}({args}):"]
    lines += [f"    {s}" for s in _unpack(nd)]
    lines.append("    P = " + " * ".join(f"O{a}" for a in range(nd)))
    lines.append("    for t in range(start, stop):")
    lines.append("        n = n0 + t")
    lines.append("        un = np.uint64(n)")
    if adjoint:
        lines += _zero_image(nd)
    lines += _body(nd, adjoint)
    return lines


def conv_kernels_source(nd: int, dtype: str, options: CodegenOptions) -> KernelSource:
    """The im2col and col2im kernels for ``nd`` spatial axes and ``dtype``."""
    i64 = numba_scalar_type("int64")
    geo = numba_array_type("int64", 1, "C", readonly=True)
    image_out = numba_array_type(dtype, nd + 2, "C")
    col_in = numba_array_type(dtype, 2, "C", readonly=True)
    col_out = numba_array_type(dtype, 2, "C")
    lines = [HEADER]
    for layout in ("C", "A"):  # a C-contiguous image is indexed without its strides
        image_in = numba_array_type(dtype, nd + 2, layout, readonly=True)
        name = f"im2col_{layout.lower()}"
        lines += [f"SIG_{name} = {signature_text([image_in, col_out, geo, i64, i64, i64])}",
                  "", *_function(nd, False, name), "", ""]
    lines += [f"SIG_col2im = {signature_text([col_in, image_out, geo, i64, i64, i64])}", "",
              *_function(nd, True, "col2im"), ""]
    key = ("conv-im2col", CONV_CODEGEN_VERSION, nd, dtype, options.key())
    return KernelSource(key, "\n".join(lines), ("im2col_c", "im2col_a", "col2im"), options,
                        f"im2col/col2im {nd}-d {dtype}")
