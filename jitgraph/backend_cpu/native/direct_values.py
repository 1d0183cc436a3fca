"""What expressions of a kernel evaluate to while :mod:`.direct_lower` translates it, and the
IR-text writer it emits through."""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from jitgraph.backend_cpu.native.direct_types import value_type


@dataclass(frozen=True)
class Value:
    """A scalar SSA value: its LLVM name (or constant text) and dtype."""

    ref: str
    dtype: str

    @property
    def llvm(self) -> str:
        return value_type(self.dtype)


@dataclass(frozen=True)
class Literal:
    """A Python constant not yet given an LLVM type (numbers, strings, ``()``)."""

    value: Any


@dataclass(frozen=True)
class ArrayValue:
    """An array: element dtype, layout, data pointer, and per-axis shape and byte strides."""

    dtype: str
    layout: str
    data: str
    shape: tuple[str, ...]
    strides: tuple[str, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Pointer:
    ref: str
    dtype: str


@dataclass(frozen=True)
class ShapeTuple:
    items: tuple[Value, ...]


@dataclass(frozen=True)
class Module:
    """A module known by name (``math``, ``numpy``, ``numba``)."""

    name: str


@dataclass(frozen=True)
class DType:
    """A NumPy scalar type used as a value (``np.float64``): a cast, or an argument."""

    dtype: str


@dataclass(frozen=True)
class Intrinsic:
    """A helper the translator implements itself (``stack_empty``, ``block_call`` ...)."""

    name: str


@dataclass
class PyFunction:
    """A plain Python function (of a jitgraph module) inlined where it is called."""

    node: ast.FunctionDef
    env: ModuleEnv


@dataclass
class ModuleEnv:
    """Module-level names of a source: imports, constants and functions."""

    module: str = ""
    names: dict[str, Any] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    signatures: dict[str, ast.expr] = field(default_factory=dict)


@dataclass(frozen=True)
class Variable:
    """A local scalar variable: a stack slot of a fixed dtype (promoted to a register)."""

    slot: str
    dtype: str


class Writer:
    """LLVM IR text of one function: straight-line lines, entry-block allocas, constants."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.allocas: list[str] = []
        self.globals: list[str] = []
        self.declarations: dict[str, str] = {}
        self.metadata: list[str] = []  # module-level ``!N = ...`` lines
        self._n = 0
        self.terminated = False

    def tmp(self, prefix: str = "t") -> str:
        self._n += 1
        return f"%{prefix}{self._n}"

    def new_label(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def emit(self, text: str) -> None:
        if self.terminated:  # code after a raise/return/break: an unreachable block
            self.label(self.new_label("dead"))
        self.lines.append(f"  {text}")

    def value(self, text: str, prefix: str = "t") -> str:
        name = self.tmp(prefix)
        self.emit(f"{name} = {text}")
        return name

    def terminate(self, text: str) -> None:
        self.emit(text)
        self.terminated = True

    def label(self, name: str) -> None:
        if not self.terminated:
            self.lines.append(f"  br label %{name}")
        self.lines.append(f"{name}:")
        self.terminated = False

    def branch(self, cond: str, then: str, other: str) -> None:
        self.terminate(f"br i1 {cond}, label %{then}, label %{other}")

    def jump(self, target: str) -> None:
        self.terminate(f"br label %{target}")

    def loop_back(self, head: str, unroll: bool) -> None:
        """The back edge of a loop to ``head``; ``unroll=False`` tells LLVM not to unroll the
        loop by a run-time count. (Not ``llvm.loop.unroll.disable``: that also stops the
        vectorizer interleaving the loop.)"""
        if unroll:
            self.jump(head)
            return
        loop, hint = f"!{len(self.metadata)}", f"!{len(self.metadata) + 1}"
        self.metadata += [f"{loop} = distinct !{{{loop}, {hint}}}",
                          f'{hint} = !{{!"llvm.loop.unroll.runtime.disable"}}']
        self.terminate(f"br label %{head}, !llvm.loop {loop}")

    def alloca(self, llvm_type: str, count: int = 0, align: int = 0) -> str:
        self._n += 1
        name = f"%v{self._n}"
        size = f", i64 {count}" if count else ""
        extra = f", align {align}" if align else ""
        self.allocas.append(f"  {name} = alloca {llvm_type}{size}{extra}")
        return name

    def declare(self, name: str, text: str) -> None:
        self.declarations.setdefault(name, text)

    @contextlib.contextmanager
    def capture(self) -> Iterator[Captured]:
        """Emit into a separate list (the caller splices it back with :meth:`splice`)."""
        cap = Captured([], False)
        with self.resume(cap):
            yield cap

    @contextlib.contextmanager
    def resume(self, cap: Captured) -> Iterator[Captured]:
        """Go on emitting at the end of captured code."""
        saved, saved_term = self.lines, self.terminated
        self.lines, self.terminated = cap.lines, cap.terminated
        try:
            yield cap
        finally:
            cap.terminated = self.terminated
            self.lines, self.terminated = saved, saved_term

    def splice(self, cap: Captured) -> None:
        self.lines.extend(cap.lines)
        self.terminated = cap.terminated


@dataclass
class Captured:
    lines: list[str]
    terminated: bool
