"""CUDA sources of the convolution and pooling kernels (1 to 3 spatial axes), grid-stride loops
with the geometry as ``long long`` arguments (one module per rank and dtype serves every
shape).

* ``jg_im2col``: one thread per column-matrix entry ``col[row, t * P + o]`` (``row`` = channel
  and kernel tap, ``t`` = image of the chunk, ``o`` = output position), read through the
  image's element strides (any layout, flipped views included), 0 in the padding;
* ``jg_col2im``: one thread per image pixel, *gathering* the column entries that read it (no
  atomics): for each tap, the output position that read this pixel, if there is one;
* pooling: ``jg_pool_max``/``jg_pool_avg`` one thread per output; ``jg_pool_grad_max``/
  ``jg_pool_grad_avg`` one thread per input pixel, gathering over the windows that contain it;
  ``jg_pool_grad_grad`` one thread per output. Pooling arrays are C-contiguous ``(batch,
  *spatial)``; the average's divisor kind is an argument (0 sum, 1 counting padding, 2 not).
"""

from __future__ import annotations

from jitgraph.backend_gpu.cuda_types import C_TYPES, check_dtypes, is_float, lit
from jitgraph.backend_gpu.kernels import CudaSource

#: Bumped when the generated sources change.
VERSION = 1


def _params(names: str, nd: int) -> str:
    return ", ".join(f"long long {p}{a}" for p in names for a in range(nd))


def _decode(index: str, names: list[str], sizes: list[str]) -> list[str]:
    """Lines splitting the flat ``index`` into ``names`` (row-major over ``sizes``)."""
    lines = [f"    long long rest = {index};"]
    pairs = list(zip(reversed(names), reversed(sizes)))
    for k, (name, size) in enumerate(pairs):
        if k == len(pairs) - 1:
            lines.append(f"    const long long {name} = rest;")
        else:
            lines.append(f"    const long long {name} = rest % {size}; rest /= {size};")
    return lines


def conv_source(nd: int, dtype: str) -> CudaSource:
    """``jg_im2col`` and ``jg_col2im`` for ``nd`` spatial axes."""
    check_dtypes(dtype)
    t = C_TYPES[dtype]
    geo = (f"long long C, {_params('S', nd)}, {_params('K', nd)}, {_params('T', nd)}, "
           f"{_params('D', nd)}, {_params('L', nd)}, {_params('O', nd)}")
    npix = " * ".join(f"O{a}" for a in range(nd))
    taps = " * ".join(f"K{a}" for a in range(nd))
    lines = [f"// jitgraph im2col/col2im, {nd}-d {dtype}",
             f'extern "C" __global__ void jg_im2col(const {t}* __restrict__ x, '
             f"{t}* __restrict__ col, long long n0, long long nb, {geo}, long long xs_n, "
             f"long long xs_c, {', '.join(f'long long xs{a}' for a in range(nd))}) {{",
             f"    const long long P = {npix};",
             f"    const long long total = C * {taps} * nb * P;",
             "    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
             "idx < total; idx += (long long)gridDim.x * blockDim.x) {"]
    body = _decode("idx", ["c"] + [f"k{a}" for a in range(nd)] + ["tt"] +
                   [f"o{a}" for a in range(nd)],
                   ["C"] + [f"K{a}" for a in range(nd)] + ["nb"] + [f"O{a}" for a in range(nd)])
    lines += ["    " + b for b in body]
    inside = " && ".join(f"i{a} >= 0 && i{a} < S{a}" for a in range(nd))
    offset = " + ".join(["(n0 + tt) * xs_n", "c * xs_c"] + [f"i{a} * xs{a}" for a in range(nd)])
    lines += [f"        const long long i{a} = o{a} * T{a} + k{a} * D{a} - L{a};"
              for a in range(nd)]
    lines += [f"        col[idx] = ({inside}) ? x[{offset}] : ({t})0;", "    }", "}", ""]
    # col2im: gather per pixel
    lines += [f'extern "C" __global__ void jg_col2im(const {t}* __restrict__ col, '
              f"{t}* __restrict__ g, long long n0, long long nb, {geo}) {{",
              f"    const long long P = {npix};",
              "    const long long total = nb * C * " + " * ".join(f"S{a}" for a in range(nd))
              + ";",
              "    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
              "idx < total; idx += (long long)gridDim.x * blockDim.x) {"]
    body = _decode("idx", ["tt", "c"] + [f"y{a}" for a in range(nd)],
                   ["nb", "C"] + [f"S{a}" for a in range(nd)])
    lines += ["    " + b for b in body]
    lines.append(f"        {t} acc = ({t})0;")
    depth = 2
    for a in range(nd):
        pad = "    " * depth
        lines += [f"{pad}for (long long k{a} = 0; k{a} < K{a}; ++k{a}) {{",
                  f"{pad}    const long long a{a} = y{a} + L{a} - k{a} * D{a};",
                  f"{pad}    if (a{a} < 0 || a{a} % T{a} != 0 || a{a} / T{a} >= O{a}) continue;",
                  f"{pad}    const long long o{a} = a{a} / T{a};"]
        depth += 1
    row = "c"
    for a in range(nd):
        row = f"({row}) * K{a} + k{a}"
    opos = "0"
    for a in range(nd):
        opos = f"({opos}) * O{a} + o{a}"
    lines.append("    " * depth + f"acc += col[({row}) * (nb * P) + tt * P + {opos}];")
    for a in reversed(range(nd)):
        lines.append("    " * (2 + a) + "}")
    size = " * ".join(f"S{a}" for a in range(nd))
    lines += [f"        g[(n0 + tt) * C * {size} + idx % (C * {size})] = acc;", "    }", "}", ""]
    return CudaSource(("cuda-im2col", VERSION, nd, dtype), "\n".join(lines),
                      ("jg_im2col", "jg_col2im"), f"im2col/col2im {nd}-d {dtype}")


def _window(nd: int) -> list[str]:
    lines = []
    for a in range(nd):
        lines += [f"        const long long s{a} = o{a} * T{a} - P{a};",
                  f"        const long long e{a} = s{a} + W{a};",
                  f"        const long long lo{a} = s{a} > 0 ? s{a} : 0;",
                  f"        const long long hi{a} = e{a} < S{a} ? e{a} : S{a};"]
    return lines


def _count(nd: int) -> list[str]:
    lines = ["        double cnt = 1.0;"]
    for a in range(nd):
        lines += [f"        if (kind == 1) cnt *= (double)((e{a} < S{a} + P{a} ? e{a} : "
                  f"S{a} + P{a}) - s{a});",
                  f"        else if (kind == 2) cnt *= (double)(hi{a} - lo{a});"]
    return lines


def _loop_pixels(nd: int, inner: list[str], depth: int = 2) -> list[str]:
    lines = []
    for a in range(nd):
        lines.append("    " * (depth + a) + f"for (long long i{a} = lo{a}; i{a} < hi{a}; "
                                               f"++i{a}) {{")
    lines += ["    " * (depth + nd) + s for s in inner]
    lines += ["    " * (depth + a) + "}" for a in reversed(range(nd))]
    return lines


def pool_source(nd: int, dtype: str) -> CudaSource:
    """The pooling kernels for ``nd`` pooled axes (float dtypes)."""
    check_dtypes(dtype)
    if not is_float(dtype):
        raise ValueError(f"pooling kernels need a float dtype, got {dtype}")
    t = C_TYPES[dtype]
    geo = f"long long B, {_params('S', nd)}, {_params('W', nd)}, {_params('T', nd)}, " \
          f"{_params('P', nd)}, {_params('O', nd)}"
    size = " * ".join(f"S{a}" for a in range(nd))
    outs = " * ".join(f"O{a}" for a in range(nd))
    pix = " + ".join([f"b * {size}"] + [f"i{a}" + "".join(f" * S{k}" for k in range(a + 1, nd))
                                        for a in range(nd)])
    opos = " + ".join([f"b * {outs}"] + [f"o{a}" + "".join(f" * O{k}" for k in range(a + 1, nd))
                                         for a in range(nd)])
    loop = ["    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
            "idx < total; idx += (long long)gridDim.x * blockDim.x) {"]
    per_out = _decode("idx", ["b"] + [f"o{a}" for a in range(nd)], ["B"] +
                      [f"O{a}" for a in range(nd)])
    per_pix = _decode("idx", ["b"] + [f"i{a}" for a in range(nd)], ["B"] +
                      [f"S{a}" for a in range(nd)])
    lines = [f"// jitgraph pooling, {nd}-d {dtype}"]

    def kernel(name: str, args: str, over_outputs: bool, body: list[str]) -> None:
        lines.append(f'extern "C" __global__ void {name}({args}, {geo}) {{')
        lines.append(f"    const long long total = B * {outs if over_outputs else size};")
        lines.extend(loop)
        lines.extend("    " + s for s in (per_out if over_outputs else per_pix))
        lines.extend(body)
        lines.extend(["    }", "}", ""])

    kernel("jg_pool_max", f"const {t}* __restrict__ x, {t}* __restrict__ out", True,
           _window(nd) + [f"        {t} best = {lit(float('-inf'), dtype)};"] + _loop_pixels(
               nd, [f"const {t} v = x[{pix}];", "if (v > best || v != v) best = v;"])
           + [f"        out[idx] = best;"])
    kernel("jg_pool_avg", f"const {t}* __restrict__ x, {t}* __restrict__ out, int kind", True,
           _window(nd) + [f"        {t} acc = ({t})0;"] + _loop_pixels(nd, [f"acc += x[{pix}];"])
           + _count(nd) + [f"        out[idx] = ({t})((double)acc / cnt);"])
    kernel("jg_pool_grad_grad", f"const {t}* __restrict__ x, const {t}* __restrict__ m, "
           f"const {t}* __restrict__ gg, {t}* __restrict__ out", True,
           _window(nd) + [f"        const {t} top = m[idx];", f"        {t} acc = ({t})0;"]
           + _loop_pixels(nd, [f"if (x[{pix}] == top) acc += gg[{pix}];"])
           + ["        out[idx] = acc;"])
    # gradients: gather over the windows o with o*T - P <= i < o*T - P + W
    gather = []
    for a in range(nd):
        gather += [f"        const long long first{a} = i{a} + P{a} - W{a} + 1;",
                   f"        long long olo{a} = first{a} > 0 ? (first{a} + T{a} - 1) / T{a} : 0;",
                   f"        long long ohi{a} = (i{a} + P{a}) / T{a} + 1;",
                   f"        if (ohi{a} > O{a}) ohi{a} = O{a};"]

    def over_windows(inner: list[str]) -> list[str]:
        out = []
        for a in range(nd):
            out.append("    " * (2 + a) + f"for (long long o{a} = olo{a}; o{a} < ohi{a}; "
                                           f"++o{a}) {{")
        out += ["    " * (2 + nd) + s for s in inner]
        out += ["    " * (2 + a) + "}" for a in reversed(range(nd))]
        return out

    kernel("jg_pool_grad_max", f"const {t}* __restrict__ x, const {t}* __restrict__ m, "
           f"const {t}* __restrict__ gz, {t}* __restrict__ gx", False,
           gather + [f"        const {t} v = x[idx];", f"        {t} acc = ({t})0;"]
           + over_windows([f"if (m[{opos}] == v) acc += gz[{opos}];"])
           + ["        gx[idx] = acc;"])
    avg_inner = [f"const long long s{a} = o{a} * T{a} - P{a}; "
                 f"const long long e{a} = s{a} + W{a}; "
                 f"const long long lo{a} = s{a} > 0 ? s{a} : 0; "
                 f"const long long hi{a} = e{a} < S{a} ? e{a} : S{a};" for a in range(nd)]
    avg_inner += [s.strip() for s in _count(nd)]
    avg_inner.append(f"acc += ({t})((double)gz[{opos}] / cnt);")
    kernel("jg_pool_grad_avg", f"const {t}* __restrict__ gz, {t}* __restrict__ gx, int kind",
           False, gather + [f"        {t} acc = ({t})0;"] + over_windows(avg_inner)
           + ["        gx[idx] = acc;"])
    entries = ("jg_pool_max", "jg_pool_avg", "jg_pool_grad_grad", "jg_pool_grad_max",
               "jg_pool_grad_avg")
    return CudaSource(("cuda-pool", VERSION, nd, dtype), "\n".join(lines), entries,
                      f"pooling {nd}-d {dtype}")
