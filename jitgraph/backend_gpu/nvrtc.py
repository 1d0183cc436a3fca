"""NVRTC: the ``nvcc.*`` flags as NVRTC options, and compiling generated CUDA to a cubin.

jitgraph never runs nvcc. Kernels are compiled in-process by NVRTC (through CuPy's bindings,
which need only the ``nvidia-cuda-nvrtc`` wheel, no GPU and no driver) straight to a **cubin**
for the device's architecture (``sm_XX``), not PTX, which a driver older than the NVRTC wheel
could not load. The one exception is a device of a newer major than NVRTC knows (no cubin NVRTC
writes loads there): it gets PTX for NVRTC's newest virtual architecture, which its (newer)
driver compiles (:func:`target_for`). A device older than NVRTC's oldest architecture is
reported unusable (``device.status``).

Flags:

* ``nvcc.fastmath`` -> ``--use_fast_math``.
* ``nvcc.flags``: every token is translated (:func:`translate_flags`). nvcc spellings NVRTC also
  understands pass through or are respelled (``-lineinfo``, ``-G``, ``--maxrregcount=N``,
  ``-D``/``-U``/``-I``, ``--ftz=``, ``--prec-div=``, ``--prec-sqrt=``, ``--fmad=``,
  ``-Xptxas=``/``--ptxas-options=``, ``-std=``, ``-restrict``, ``-w``, ...); nvcc's ``-O0..-O3``
  become ptxas optimisation levels; ``-m64`` is dropped (NVRTC is 64-bit only). Options that
  concern host code, linking or the target architecture are refused with an error naming them.
* ``nvcc.compiler_bindir`` is meaningless (no host compiler) and reported ignored by the config.
* ``cuda.root`` becomes ``CUDA_PATH`` before CuPy is imported, so that NVRTC and the CUDA headers
  CuPy's own kernels need are looked up there first (see ``device.import_cupy``).

The options enter the kernel cache key (with the architecture and the NVRTC version).
"""

from __future__ import annotations

import re
import time
from functools import lru_cache
from typing import Any

from jitgraph.config import config

_PASS_EXACT = {
    "-lineinfo": "-lineinfo", "--generate-line-info": "-lineinfo",
    "-G": "-G", "--device-debug": "-G",
    "--use_fast_math": "--use_fast_math", "-use_fast_math": "--use_fast_math",
    "--extra-device-vectorization": "--extra-device-vectorization",
    "-extra-device-vectorization": "--extra-device-vectorization",
    "--restrict": "--restrict", "-restrict": "--restrict",
    "-w": "-w", "--disable-warnings": "-w",
    "-default-device": "-default-device",
    "--device-as-default-execution-space": "-default-device",
    "--fdevice-syntax-only": "--fdevice-syntax-only",
}
#: ``prefix=value`` options: nvcc spelling -> NVRTC spelling (the value is kept)
_PASS_VALUE = {
    "--maxrregcount=": "--maxrregcount=", "-maxrregcount=": "--maxrregcount=",
    "--ftz=": "--ftz=", "-ftz=": "--ftz=",
    "--prec-div=": "--prec-div=", "-prec-div=": "--prec-div=",
    "--prec-sqrt=": "--prec-sqrt=", "-prec-sqrt=": "--prec-sqrt=",
    "--fmad=": "--fmad=", "-fmad=": "--fmad=",
    "--ptxas-options=": "--ptxas-options=", "-Xptxas=": "--ptxas-options=",
    "--std=": "-std=", "-std=": "-std=",
    "--define-macro=": "-D", "--undefine-macro=": "-U", "--include-path=": "-I",
    "--dopt=": "--dopt=", "-dopt=": "--dopt=",
    "--optimization-info=": "--optimization-info=",
}
_PASS_PREFIX = ("-D", "-U", "-I")
_OPT_LEVEL = re.compile(r"-O([0-3])$")
_DROPPED = {"-m64": "NVRTC always compiles 64-bit device code"}

#: options NVRTC cannot take, with the reason given in the error
_REFUSED_PREFIXES = {
    ("-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
     "--generate-code"): "the architecture is the device's (sm_XX); it cannot be overridden",
    ("-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir", "-Xlinker",
     "--linker-options", "-L", "-l", "--library", "-shared", "--shared", "-fPIC",
     "-g", "--debug", "-c", "--compile", "-o", "--output-file", "-m32"):
     "it concerns host code, linking or output files, and NVRTC compiles device code only",
    ("-rdc", "--relocatable-device-code", "-dc", "--device-c", "-dlink", "--device-link",
     "-dlto", "-lto"): "jitgraph loads whole, non-relocatable modules",
}


class NvrtcOptionError(ValueError):
    """An ``nvcc.flags`` option NVRTC cannot take."""


class KernelCompileError(RuntimeError):
    """NVRTC rejected a generated kernel (the log and the source name are in the message)."""


def _translate_one(token: str) -> tuple[str | None, str | None]:
    """(NVRTC option or None when dropped, refusal reason or None)."""
    if token in _PASS_EXACT:
        return _PASS_EXACT[token], None
    if token in _DROPPED:
        return None, None
    level = _OPT_LEVEL.match(token)
    if level:
        return f"--ptxas-options=-O{level.group(1)}", None
    for prefix, target in _PASS_VALUE.items():
        if token.startswith(prefix) and len(token) > len(prefix):
            return target + token[len(prefix):], None
    for prefix in _PASS_PREFIX:
        if token.startswith(prefix) and len(token) > len(prefix):
            return token, None
    for prefixes, why in _REFUSED_PREFIXES.items():
        name = token.split("=", 1)[0]
        if name in prefixes:
            return None, why
    return None, "NVRTC has no such option"


def translate_flags(text: str) -> tuple[str, ...]:
    """The NVRTC options for an ``nvcc.flags`` string (raises :class:`NvrtcOptionError`)."""
    out: list[str] = []
    refused: list[str] = []
    for token in text.split():
        option, why = _translate_one(token)
        if why is not None:
            refused.append(f"{token} ({why})")
        elif option is not None:
            out.append(option)
    if refused:
        raise NvrtcOptionError("nvcc.flags contains options NVRTC cannot take: "
                               + "; ".join(refused)
                               + ". Remove them from nvcc.flags (jitgraph compiles GPU kernels "
                               "with NVRTC, not nvcc).")
    return tuple(out)


def dropped_flags(text: str) -> list[str]:
    """The tokens of ``nvcc.flags`` accepted but without effect (reported by print_active_device)."""
    return [t for t in text.split() if t in _DROPPED]


def current_options() -> tuple[str, ...]:
    """The NVRTC options from the flags (without the architecture)."""
    opts: list[str] = []
    if config.nvcc.fastmath:
        opts.append("--use_fast_math")
    opts.extend(translate_flags(config.nvcc.flags))
    return tuple(dict.fromkeys(opts))


def arch_option(arch: str) -> str:
    if not re.fullmatch(r"sm_\d+[a-z]?", arch):
        raise ValueError(f"not a CUDA architecture name: {arch!r} (expected sm_XX)")
    return f"--gpu-architecture={arch}"


def _nvrtc() -> Any:
    from jitgraph.backend_gpu.device import import_cupy

    import_cupy()
    from cupy.cuda import nvrtc

    return nvrtc


@lru_cache(maxsize=None)
def version() -> tuple[int, int]:
    """NVRTC's (major, minor); raises when the NVRTC library cannot be loaded."""
    return tuple(_nvrtc().getVersion())  # type: ignore[return-value]


@lru_cache(maxsize=None)
def supported_archs() -> tuple[int, ...]:
    return tuple(_nvrtc().getSupportedArchs())


def available() -> tuple[bool, str]:
    """Whether NVRTC can be loaded here (no GPU needed), and why not."""
    try:
        return True, "NVRTC %d.%d" % version()
    except ImportError as exc:
        return False, f"CuPy is not installed ({exc})"
    except Exception as exc:  # noqa: BLE001 - DynamicLibNotFoundError and friends
        return False, f"NVRTC cannot be loaded: {type(exc).__name__}: {exc}"


def target_for(compute_capability: tuple[int, int], archs: tuple[int, ...]) -> str:
    """What NVRTC compiles for a device: a cubin for the newest architecture it knows of the
    device's major (``sm_90`` for 9.0 and 9.5), else, for a device of a newer major than NVRTC
    knows, PTX for its newest virtual architecture (``compute_121``: the driver compiles it for
    the device). Raises ValueError for a device older than NVRTC's oldest architecture."""
    major, minor = compute_capability
    cc = major * 10 + minor
    same_major = [a for a in archs if a // 10 == major and a <= cc]
    if same_major:
        return f"sm_{max(same_major)}"
    older = [a for a in archs if a <= cc]
    if older:
        return f"compute_{max(older)}"
    raise ValueError(f"compute capability {major}.{minor} is older than the oldest "
                     f"architecture this NVRTC compiles for (sm_{min(archs)})")


def is_ptx_target(target: str) -> bool:
    """Whether ``target`` (from :func:`target_for`) is a virtual architecture (PTX)."""
    return target.startswith("compute_")


def compile_ptx(source: str, name: str, target: str, options: tuple[str, ...] = ()
                ) -> tuple[bytes, str, float]:
    """``source`` compiled by NVRTC to PTX for the virtual architecture ``target``
    (``compute_XX``): (PTX, log, seconds)."""
    if not re.fullmatch(r"compute_\d+", target):
        raise ValueError(f"not a virtual CUDA architecture: {target!r} (expected compute_XX)")
    return _compile(source, name, f"--gpu-architecture={target}", options, ptx=True)


def compile_cubin(source: str, name: str, arch: str, options: tuple[str, ...] = ()
                  ) -> tuple[bytes, str, float]:
    """``source`` compiled by NVRTC for ``arch``: (cubin, log without trailing NULs, seconds)."""
    return _compile(source, name, arch_option(arch), options, ptx=False)


def _compile(source: str, name: str, arch_opt: str, options: tuple[str, ...], ptx: bool
             ) -> tuple[bytes, str, float]:
    nvrtc = _nvrtc()
    arch = arch_opt.split("=", 1)[1]
    opts = (arch_opt,) + tuple(options)
    t0 = time.perf_counter()
    prog = nvrtc.createProgram(source, name, (), ())
    try:
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError as exc:
            log = nvrtc.getProgramLog(prog).rstrip("\x00").strip()
            raise KernelCompileError(
                f"NVRTC could not compile the generated kernel {name} for {arch} with options "
                f"{list(options)}: {exc}\n{log}") from None
        cubin = nvrtc.getPTX(prog) if ptx else nvrtc.getCUBIN(prog)
        log = nvrtc.getProgramLog(prog).rstrip("\x00").strip()
    finally:
        nvrtc.destroyProgram(prog)
    return cubin, log, time.perf_counter() - t0


_REG = re.compile(r"Used (\d+) registers")
_SPILL = re.compile(r"(\d+) bytes spill stores")


def resource_usage(log: str) -> dict[str, int]:
    """Registers and spill stores from a log compiled with ``--ptxas-options=-v``."""
    regs = [int(m) for m in _REG.findall(log)]
    spills = [int(m) for m in _SPILL.findall(log)]
    return {"registers": max(regs, default=0), "spill_stores": max(spills, default=0)}


def warnings_in(log: str) -> list[str]:
    """The warning/error lines of an NVRTC log (ptxas ``info`` lines are not warnings)."""
    return [line for line in log.splitlines()
            if line.strip() and not line.lstrip().startswith("ptxas info")
            and not line.lstrip().startswith("ptxas         .")]
