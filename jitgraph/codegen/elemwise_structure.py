"""What an elementwise kernel depends on, for every backend: the scalar program, the dtypes and
the broadcast patterns. Each backend subclasses it with its own ``key`` (the kernel's identity)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ElemwiseStructure:
    """One ``Elemwise`` / fused ``Composite`` kernel's structure."""

    scalar_op: Any = field(compare=False, hash=False)
    op_key: tuple
    in_dtypes: tuple[str, ...]
    out_dtypes: tuple[str, ...]
    patterns: tuple[tuple[bool, ...], ...]  # broadcastable pattern of each input
    out_pattern: tuple[bool, ...]
    inplace: tuple[tuple[int, int], ...]     # (output, input) pairs

    @property
    def ndim(self) -> int:
        return len(self.out_pattern)

    @property
    def nin(self) -> int:
        return len(self.in_dtypes)

    @property
    def nout(self) -> int:
        return len(self.out_dtypes)

    def is_scalar_like(self, j: int) -> bool:
        """Broadcast along every axis (read once)."""
        return all(self.patterns[j])

    def is_partial(self, j: int) -> bool:
        """Broadcast along some axes the output is not broadcast along."""
        return (any(p and not o for p, o in zip(self.patterns[j], self.out_pattern))
                and not self.is_scalar_like(j))

    def describe(self) -> str:
        return f"elemwise {self.scalar_op} {self.in_dtypes}->{self.out_dtypes} ndim={self.ndim}"
