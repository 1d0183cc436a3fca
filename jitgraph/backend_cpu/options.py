"""Compile options: the ``cxx`` / ``gcc.cxxflags`` / ``cmodule.*`` flags mapped onto Numba and LLVM.

What Numba lets us set **per function** (so it is applied to each kernel and enters its key):
``fastmath`` (a set of LLVM fast-math flags), ``error_model`` (always ``'numpy'``: division by zero
gives inf/nan instead of raising, which also keeps loops vectorizable), ``debug`` and
``boundscheck``. The **LLVM optimisation level** is a global of Numba (``numba.config.OPT``), but
Numba reads it each time it builds a pass pipeline, so :func:`compiling_with` sets it around one
kernel's compilation only (under a lock). The **target CPU** is fixed when Numba's code generator
starts (the first compilation of the process): ``-march=``/``-mcpu=`` are honoured only if they
are seen before then, otherwise a warning says the host CPU is kept.

Mapping of ``gcc.cxxflags`` tokens:

===================================  =========================================================
``-O0`` .. ``-O3``, ``-Os``, ``-Oz``  LLVM optimisation level 0..3 (``-Os``/``-Oz`` -> 2)
``-Ofast``                           level 3 and every fast-math flag
``-ffast-math``                      every fast-math flag (``nnan ninf nsz arcp contract afn
                                     reassoc``)
``-ffinite-math-only``               ``nnan ninf``
``-fno-signed-zeros``                ``nsz``
``-freciprocal-math``                ``arcp``
``-fassociative-math``               ``reassoc``
``-funsafe-math-optimizations``      ``nsz arcp reassoc afn contract``
``-ffp-contract=fast``               ``contract``
``-fno-math-errno``,                 accepted, nothing to do (Numba never sets errno and never
``-fno-trapping-math``               traps)
``-march=X``, ``-mcpu=X``,           target CPU ``X`` (``native`` = the host); ``-mtune`` only
``-mtune=X``                         enters the key
``-g``                               debug info
anything else                        ignored, with one warning listing the ignored tokens
===================================  =========================================================

``cmodule.remove_gxx_opt`` forces level 0; ``cmodule.debug`` adds debug info and bounds checks;
``cmodule.compilation_warning`` shows Numba's warnings (hidden otherwise).
"""

from __future__ import annotations

import contextlib
import shlex
import threading
import warnings
from typing import Any, Iterator, NamedTuple

from jitgraph.cache.host import cpu_target
from jitgraph.config import config

#: Bumped whenever generated code changes in a way that must invalidate stored kernels.
CODEGEN_VERSION = 7  # 7: reductions accumulating in another dtype allocate nothing (6: not vectorized)
#: Bumped when the LLVM IR the direct compiler (:mod:`.direct`) writes changes.
DIRECT_VERSION = 4  # 4: loops of run-time length over contiguous arrays: no run-time unrolling

ALL_FASTMATH = ("afn", "arcp", "contract", "ninf", "nnan", "nsz", "reassoc")
_FASTMATH_PARTS = {
    "-ffast-math": ALL_FASTMATH,
    "-ffinite-math-only": ("nnan", "ninf"),
    "-fno-signed-zeros": ("nsz",),
    "-freciprocal-math": ("arcp",),
    "-fassociative-math": ("reassoc",),
    "-funsafe-math-optimizations": ("nsz", "arcp", "reassoc", "afn", "contract"),
    "-ffp-contract=fast": ("contract",),
}
_NO_EFFECT = ("-fno-math-errno", "-fno-trapping-math", "-fno-fast-math", "-pipe", "-fPIC",
              "-fno-strict-aliasing", "-w")
_OPT_LEVELS = {"-O0": 0, "-O1": 1, "-O2": 2, "-O3": 3, "-Os": 2, "-Oz": 2, "-O": 1, "-Ofast": 3}

#: Use the vectorizable polynomial exp/log/log1p/sin/cos of :mod:`.vecmath` in elementwise
#: kernels (exact libm is used for the elements they do not cover). Module-level so that an
#: experiment (``bench/``) can switch it off; it enters every kernel key.
VECMATH = True


class CodegenOptions(NamedTuple):
    """Everything that changes the code of a kernel besides its structure."""

    opt_level: int = 3
    fastmath: tuple[str, ...] = ()
    target_cpu: str = "host"
    tune_cpu: str = ""
    debug: bool = False
    boundscheck: bool = False
    vecmath: bool = True

    def key(self) -> tuple:
        """A stable, hashable, picklable description (part of every kernel key)."""
        from jitgraph.backend_cpu.native import NATIVE_VERSION

        return (("codegen", CODEGEN_VERSION), ("native", NATIVE_VERSION),
                ("direct", DIRECT_VERSION),
                ("opt", self.opt_level),
                ("fastmath", self.fastmath), ("cpu", self.target_cpu), ("tune", self.tune_cpu),
                ("debug", self.debug), ("boundscheck", self.boundscheck),
                ("vecmath", self.vecmath))

    def njit_kwargs(self) -> dict[str, Any]:
        """Per-function options for ``numba.njit``."""
        kwargs: dict[str, Any] = {"nogil": True, "error_model": "numpy", "cache": False,
                                  "no_cfunc_wrapper": True}
        if self.fastmath:
            kwargs["fastmath"] = set(self.fastmath)
        if self.debug:
            kwargs["debug"] = True
        if self.boundscheck:
            kwargs["boundscheck"] = True
        if self.opt_level == 0:
            kwargs["_dbg_optnone"] = True
        return kwargs


class ParsedFlags(NamedTuple):
    opt_level: int | None
    fastmath: tuple[str, ...]
    target_cpu: str | None
    tune_cpu: str | None
    debug: bool
    ignored: tuple[str, ...]


def parse_cxxflags(text: str) -> ParsedFlags:
    """Interpret a ``gcc.cxxflags`` string (see the module docstring)."""
    opt: int | None = None
    fm: set[str] = set()
    cpu = tune = None
    debug = False
    ignored: list[str] = []
    for tok in shlex.split(text or ""):
        if tok in _OPT_LEVELS:
            opt = _OPT_LEVELS[tok]
            if tok == "-Ofast":
                fm.update(ALL_FASTMATH)
        elif tok in _FASTMATH_PARTS:
            fm.update(_FASTMATH_PARTS[tok])
        elif tok == "-fno-fast-math":
            fm.clear()
        elif tok in _NO_EFFECT:
            continue
        elif tok.startswith(("-march=", "-mcpu=")):
            cpu = tok.split("=", 1)[1]
        elif tok.startswith("-mtune="):
            tune = tok.split("=", 1)[1]
        elif tok in ("-g", "-ggdb", "-g3"):
            debug = True
        else:
            ignored.append(tok)
    return ParsedFlags(opt, tuple(sorted(fm)), cpu, tune, debug, tuple(ignored))


_warned: set[tuple] = set()


def _warn_once(key: tuple, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=4)


def current_options() -> CodegenOptions:
    """The options implied by the current flags (warns once about ignored cxxflags tokens)."""
    parsed = parse_cxxflags(config.gcc.cxxflags)
    if parsed.ignored:
        _warn_once(("ignored", parsed.ignored),
                   "jitgraph (Numba backend) ignores these gcc.cxxflags tokens: "
                   + " ".join(parsed.ignored))
    opt = 3 if parsed.opt_level is None else parsed.opt_level
    if config.cmodule.remove_gxx_opt:
        opt = 0
    debug = parsed.debug or bool(config.cmodule.debug)
    cpu = _resolve_cpu(parsed.target_cpu)
    return CodegenOptions(opt_level=opt, fastmath=parsed.fastmath, target_cpu=cpu,
                          tune_cpu=parsed.tune_cpu or "", debug=debug,
                          boundscheck=bool(config.cmodule.debug), vecmath=VECMATH)


_codegen_started = False


def _resolve_cpu(requested: str | None) -> str:
    """The CPU kernels will really be compiled for; sets Numba's target if still possible.
    Does not import Numba (a process loading every kernel from the cache never needs it)."""
    import os
    import sys

    numba = sys.modules.get("numba")
    if numba is not None:
        active = numba.config.CPU_NAME or "host"
    else:
        active = os.environ.get("NUMBA_CPU_NAME") or "host"
    if requested in (None, "", "native", "host"):
        return _host_cpu() if active == "host" else active
    if requested == active:
        return requested
    if not _codegen_started:
        if numba is None:
            import numba
        numba.config.CPU_NAME = requested
        numba.config.CPU_FEATURES = ""
        return requested
    _warn_once(("cpu", requested),
               f"gcc.cxxflags asks for target CPU {requested!r}, but Numba's code generator "
               f"already started for {active!r} in this process; keeping {active!r}")
    return _host_cpu() if active == "host" else active


def _host_cpu() -> str:
    return cpu_target()[0]


_compile_lock = threading.RLock()


@contextlib.contextmanager
def compiling_with(options: CodegenOptions) -> Iterator[None]:
    """Around one kernel compilation: the LLVM opt level, and warnings per the flags."""
    global _codegen_started
    import numba
    from numba.core.errors import NumbaWarning

    with _compile_lock:
        saved = numba.config.OPT
        numba.config.OPT = type(saved)(options.opt_level)
        try:
            with warnings.catch_warnings():
                if not config.cmodule.compilation_warning:
                    warnings.simplefilter("ignore", NumbaWarning)
                yield
        finally:
            numba.config.OPT = saved
            _codegen_started = True


def num_threads() -> int:
    """Threads for parallel kernels: ``OMP_NUM_THREADS`` if set, else ``NUMBA_NUM_THREADS``,
    else the CPUs this process may run on (Numba's default, found without importing Numba)."""
    import os

    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
        value = os.environ.get(var, "").strip()
        if value:
            try:
                n = int(value.split(",")[0])
                if n > 0:
                    return n
            except ValueError:
                pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
