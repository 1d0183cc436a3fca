"""Names of Theano's C-code interface, which cannot exist in jitgraph.

Theano ops could carry C source (``c_code``, ``c_support_code``, ...) and typed C parameters
(``ParamsType``); Theano compiled them with g++. jitgraph generates its kernels itself (LLVM on
the CPU, CUDA C through NVRTC on the GPU) from each op's registered lowering, so these names
raise :class:`CCodeUnavailableError` saying what to do instead.
"""

from __future__ import annotations

from typing import Any

_INSTEAD = ("jitgraph does not compile C code written in ops: give the op a NumPy `perform` "
            "(always used as the reference) and, for speed, register a lowering for the CPU "
            "backend (jitgraph.backend_cpu.lowering.registry.register_lowering) or a scalar-op template; "
            "op parameters are plain attributes listed in __props__.")


class CCodeUnavailableError(NotImplementedError):
    """A Theano C-code facility was used; jitgraph has none."""


class ParamsType:
    """Theano's typed C parameters of an op. Raises :class:`CCodeUnavailableError`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise CCodeUnavailableError(f"ParamsType describes C-code op parameters. {_INSTEAD}")


def inc_code() -> str:
    """Theano's C source for in-place increments. Raises :class:`CCodeUnavailableError`."""
    raise CCodeUnavailableError(f"inc_code returns C source for Theano's C inc_subtensor. "
                                f"{_INSTEAD}")


__all__ = ["CCodeUnavailableError", "ParamsType", "inc_code"]
