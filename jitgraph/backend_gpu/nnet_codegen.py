"""CUDA source for Softmax and LogSoftmax along the last axis of a C-contiguous ``(rows, n)``
array: one block per row, three passes (NaN-propagating maximum; sum of ``exp(x - max)``;
normalisation), each a block-wide tree reduction in shared memory. The host moves the softmax
axis last (and flattens for ``axis=None``)."""

from __future__ import annotations

from dataclasses import dataclass

from jitgraph.backend_gpu.cuda_types import C_TYPES, check_dtypes, cv, is_float, lit, math_fn

ENTRY = "jg_softmax"


@dataclass(frozen=True)
class RowwiseStructure:
    log: bool
    in_dtype: str
    out_dtype: str

    def key(self) -> tuple:
        return ("cuda-softmax", self.log, self.in_dtype, self.out_dtype)

    def describe(self) -> str:
        return f"{'log_softmax' if self.log else 'softmax'} {self.in_dtype}->{self.out_dtype}"


def _block(lines: list[str], expr: str) -> None:
    lines += [
        "        __syncthreads();",
        "        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {",
        "            if (threadIdx.x < s) {",
        "                const W a = sh[threadIdx.x];",
        "                const W b = sh[threadIdx.x + s];",
        f"                sh[threadIdx.x] = {expr};",
        "            }",
        "            __syncthreads();",
        "        }",
    ]


def softmax_source(st: RowwiseStructure) -> str:
    check_dtypes(st.in_dtype, st.out_dtype)
    if not is_float(st.out_dtype):
        raise ValueError(f"softmax needs a float output, got {st.out_dtype}")
    w, tin, tout = st.out_dtype, C_TYPES[st.in_dtype], C_TYPES[st.out_dtype]
    load = cv("xr[j]", st.in_dtype, w)
    exp, log = math_fn("exp", w), math_fn("log", w)
    lines = [f"// jitgraph CUDA rowwise kernel: {st.describe()}",
             "extern __shared__ double jg_smem[];",
             f"typedef {C_TYPES[w]} W;",
             f'extern "C" __global__ void {ENTRY}(const {tin}* __restrict__ x, '
             f"{tout}* __restrict__ out, long long rows, long long n) {{",
             "    W* sh = (W*)jg_smem;",
             "    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {",
             f"        const {tin}* xr = x + row * n;",
             f"        {tout}* orow = out + row * n;",
             f"        W m = {lit(float('-inf'), w)};",
             "        for (long long j = threadIdx.x; j < n; j += blockDim.x) {",
             f"            const W v = {load};",
             "            m = ((v > m) || (v != v)) ? v : m;",
             "        }",
             "        sh[threadIdx.x] = m;"]
    _block(lines, "((a >= b) || (a != a)) ? a : b")
    lines += ["        m = sh[0];",
              "        __syncthreads();",
              f"        W s = {lit(0.0, w)};",
              "        for (long long j = threadIdx.x; j < n; j += blockDim.x) {",
              f"            const W e = {exp}({load} - m);"]
    if not st.log:
        lines.append(f"            orow[j] = {cv('e', w, st.out_dtype)};")
    lines += ["            s += e;",
              "        }",
              "        sh[threadIdx.x] = s;"]
    _block(lines, "a + b")
    lines += ["        s = sh[0];",
              "        __syncthreads();",
              "        for (long long j = threadIdx.x; j < n; j += blockDim.x) {"]
    if st.log:
        lines.append(f"            orow[j] = ({load} - m) - {log}(s);")
    else:
        lines.append("            orow[j] = orow[j] / s;")
    lines += ["        }", "    }", "}"]
    return "\n".join(lines) + "\n"
