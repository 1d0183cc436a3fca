"""Kernels compiled without Numba: generated source -> LLVM IR (:mod:`.direct_lower`) -> one
native object (:mod:`.native`), through llvmlite only.

Numba's first compilation in a process costs about half a second before any kernel (importing
it, building its typing and target contexts), and typing each kernel costs more than the LLVM
work. The kernels jitgraph generates use a small, regular part of Python, which this module
translates straight to LLVM IR with Numba's calling convention and typing rules; the resulting
object is the same kind :func:`.native.build` makes from Numba's output (same entry code, same
cache entries, same loader). A kernel outside that part is compiled by Numba as before, so the
direct path is an optimisation, never a requirement.

``JITGRAPH_DIRECT=0`` turns it off (every kernel goes through Numba).
"""

from __future__ import annotations

import collections
import os
from typing import Any

from jitgraph.backend_cpu.native import entry_ir as native_ir, objects as native
from jitgraph.backend_cpu.native.direct_types import Unsupported, param_types
from jitgraph.backend_cpu.options import DIRECT_VERSION, CodegenOptions

__all__ = ["DIRECT_VERSION", "FALLBACKS", "build", "enabled", "prepare"]

_NATIVE_NAME = "jitgraph_direct_kernel"


#: (entry, why) of the latest entries left to Numba in this process
FALLBACKS: collections.deque[tuple[str, str]] = collections.deque(maxlen=1000)


def enabled() -> bool:
    return os.environ.get("JITGRAPH_DIRECT", "1") != "0"


def build(source: str, entry: str, export: str, kind: str, options: CodegenOptions,
          quick: int | None = None) -> tuple[Any, str]:
    """The native object of ``entry`` of a kernel module ``source``, or ``(None, why not)``.
    ``quick``: a tier-0 object, LLVM's pipeline at that level and its fast instruction
    selection (a fifth to two thirds of the time; code that computes the same bits, slower).

    Never raises: anything unexpected only means Numba compiles the kernel."""
    if not enabled():
        return None, "the direct compiler is off (JITGRAPH_DIRECT=0)"
    if options.debug or options.boundscheck:
        return None, "debug info and bounds checks need Numba"
    if not native.supported():
        return None, f"interpreter ABI {native.abi_tag()} is not supported"
    try:
        return _build(source, entry, export, kind, options, quick), ""
    except Unsupported as exc:
        why = f"not translated: {exc}"
    except Exception as exc:  # noqa: BLE001 - a translation bug must not fail the kernel
        why = f"direct compilation failed ({type(exc).__name__}: {exc})"
    FALLBACKS.append((f"{export} ({entry})", why))
    return None, why


#: A small loop that :func:`prepare` compiles once: LLVM initialises its pass pipelines and
#: code generator on first use (a few milliseconds), best paid before a fork, not after it.
_WARM_UP_IR = """
define void @jitgraph_warm_up(ptr %a, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr double, ptr %a, i64 %i
  %v = load double, ptr %p
  %w = fmul double %v, 2.0
  store double %w, ptr %p
  %next = add i64 %i, 1
  br label %head
done:
  ret void
}
"""


_warmed: set[int] = set()  # target machines (ids: they live as long as the process) warmed up


def prepare(cpus: "set[str] | list[str]", warm: bool = True) -> None:
    """Set up now what compiling kernels needs (LLVM, the target machines of ``cpus``, this
    compiler's modules and, if ``warm``, LLVM's optimising pipelines: 18 ms), so that a process
    forked afterwards (:mod:`~jitgraph.backend_cpu.codegen.compile_ahead`) inherits it instead
    of paying again."""
    from jitgraph.backend_cpu.native import direct_lower  # noqa: F401 - loaded before a fork

    native.prepare(cpus)
    if not enabled() or not warm:
        return
    with native._lock:
        llvm = native._llvm()
        for tm in {id(tm): tm for tm in map(native._target_machine, cpus)}.values():
            if id(tm) not in _warmed:
                _warmed.add(id(tm))
                module = _parse(llvm, _WARM_UP_IR, tm)
                _optimize(llvm, module, tm, 2)
                tm.emit_object(module)


def _build(source: str, entry: str, export: str, kind: str, options: CodegenOptions,
           quick: int | None = None) -> Any:
    from jitgraph.backend_cpu.native.direct_lower import lower_entry

    text, argtypes = lower_entry(source, entry, _NATIVE_NAME, " ".join(options.fastmath))
    params = ["ptr", "ptr"] + [p for a in argtypes for p in param_types(a)]
    # The entry code is straight-line argument checking: left unoptimised (optnone), it
    # costs no measurable time per call and a fifth less native compilation.
    glue = native_ir.entry(kind, export, _NATIVE_NAME, params, argtypes, nogil=True,
                           unoptimized=True)
    if isinstance(glue, native_ir.NoEntry):
        raise Unsupported(glue.reason)
    with native._lock:  # one LLVM context for the process: one build at a time
        llvm = native._llvm()
        tm = native._target_machine(options.target_cpu)
        module = _parse(llvm, text, tm)
        # The kernel is optimised alone, then linked with its entry code: inlining it into
        # the entry made LLVM optimise the kernel twice (a sixth of a cold compile).
        _optimize(llvm, module, tm, options.opt_level if quick is None else quick)
        return native.finish(module, glue, export, kind, options.target_cpu,
                             quick=quick is not None)


def _parse(llvm: Any, text: str, tm: Any) -> Any:
    module = llvm.parse_assembly(text)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    return module


def _optimize(llvm: Any, module: Any, tm: Any, level: int) -> None:
    """LLVM's pipeline at ``level``, with loop vectorization as Numba configures it."""
    pto = llvm.create_pipeline_tuning_options(speed_level=level)  # size_level: not in 0.50
    pto.loop_vectorization = level >= 2
    pto.slp_vectorization = False
    pto.loop_unrolling = level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)
