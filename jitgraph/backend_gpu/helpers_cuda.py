"""Small device functions that generated kernels call by name; a kernel's source contains only
the ones its body uses (fewer lines for NVRTC to parse, smaller golden sources). Python helper
functions a kernel calls are translated (:mod:`.python_to_cuda`) and defined after these."""

from __future__ import annotations

SFLOORDIV = "jg_sfloordiv"
UDIV = "jg_udiv"
FFLOORDIV = "jg_ffloordiv"
SMOD = "jg_smod"
UMOD = "jg_umod"
FMOD = "jg_fmod"
SIPOW = "jg_sipow"
UIPOW = "jg_uipow"

_ULL = "unsigned long long"

SOURCES: dict[str, str] = {
    # Python floor division of signed integers: 0 for a zero divisor, MIN // -1 wraps.
    SFLOORDIV: f"""\
template <typename T> __device__ __forceinline__ T jg_sfloordiv(T x, T y) {{
    if (y == 0) return (T)0;
    if (y == (T)-1) return (T)(0ULL - ({_ULL})x);
    T q = (T)(x / y);
    if ((T)(x % y) != 0 && ((x < 0) != (y < 0))) q = (T)(q - 1);
    return q;
}}
""",
    UDIV: """\
template <typename T> __device__ __forceinline__ T jg_udiv(T x, T y) {
    return y == 0 ? (T)0 : (T)(x / y);
}
""",
    # NumPy's float floor division (npy_divmod): exact quotient, rounded toward -inf.
    FFLOORDIV: """\
__device__ __forceinline__ float jg_fmod_raw(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double jg_fmod_raw(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float jg_floor_raw(float a) { return floorf(a); }
__device__ __forceinline__ double jg_floor_raw(double a) { return floor(a); }
__device__ __forceinline__ float jg_copysign_raw(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double jg_copysign_raw(double a, double b) { return copysign(a, b); }
template <typename T> __device__ __forceinline__ T jg_ffloordiv(T a, T b) {
    if (b == 0) return a / b;
    T mod = jg_fmod_raw(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    T fl;
    if (div != 0) {
        fl = jg_floor_raw(div);
        if (div - fl > (T)0.5) fl += 1;
    } else {
        fl = jg_copysign_raw((T)0, a / b);
    }
    return fl;
}
""",
    SMOD: """\
template <typename T> __device__ __forceinline__ T jg_smod(T x, T y) {
    if (y == 0 || y == (T)-1) return (T)0;
    T r = (T)(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = (T)(r + y);
    return r;
}
""",
    UMOD: """\
template <typename T> __device__ __forceinline__ T jg_umod(T x, T y) {
    return y == 0 ? (T)0 : (T)(x % y);
}
""",
    # NumPy's float remainder: the sign of the divisor; NaN for a zero divisor.
    FMOD: """\
__device__ __forceinline__ float jg_fmod_f(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double jg_fmod_f(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float jg_copysign_f(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double jg_copysign_f(double a, double b) { return copysign(a, b); }
template <typename T> __device__ __forceinline__ T jg_fmod(T a, T b) {
    T mod = jg_fmod_f(a, b);
    if (b == 0) return mod;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) mod += b;
    } else {
        mod = jg_copysign_f((T)0, b);
    }
    return mod;
}
""",
    # Integer power by squaring, wrapping; a negative exponent sets the error flag (the host
    # raises NumPy's ValueError).
    SIPOW: """\
template <typename T> __device__ __forceinline__ T jg_sipow(T x, T y, int* err) {
    if (y < 0) { *err = 1; return (T)0; }
    return jg_uipow(x, y);
}
""",
    UIPOW: f"""\
template <typename T> __device__ __forceinline__ T jg_uipow(T x, T y) {{
    {_ULL} r = 1ULL, base = ({_ULL})x, e = ({_ULL})y;
    while (e) {{
        if (e & 1ULL) r *= base;
        base *= base;
        e >>= 1;
    }}
    return (T)r;
}}
""",
}


#: helpers defined in terms of others
_NEEDS = {SIPOW: (UIPOW,)}


def helper_sources(names: set[str]) -> str:
    """The definitions of ``names``, in a stable order: the functions above, then the device
    functions of Python helpers (:mod:`.python_to_cuda`), each after the ones it calls."""
    builtin = {n for n in names if n in SOURCES}
    translated: list[str] = []
    if len(builtin) < len(names):
        from jitgraph.backend_gpu.python_to_cuda import REGISTERED, device_source

        done: set[str] = set()
        for name in sorted(set(names) - builtin):
            for fn in REGISTERED[name].closure():
                if fn.symbol not in done:
                    done.add(fn.symbol)
                    text, uses = device_source(fn)
                    translated.append(text)
                    builtin |= uses
    builtin |= {d for n in builtin for d in _NEEDS.get(n, ())}
    ordered = sorted(builtin, key=lambda n: (n in _NEEDS, n))  # what others need first
    return "".join(SOURCES[n] for n in ordered) + "".join(translated)
