"""The layout of a Scan node: which inputs and outputs play which role.

Outer inputs, in order::

    n_steps | sequences | initial buffers of the recurrent outputs | shared states | non-sequences

Inner inputs (what the step function receives), in order::

    one slice per sequence | one value per tap of each recurrent output | shared states |
    non-sequences

Inner outputs: the new value of each recurrent output, then the outputs not fed back
("nit-sot"), then the new value of each shared state, then the ``until`` condition when the loop
is a do-while. Outer outputs: the buffer of each recurrent output (its initial entries followed by
one entry per step), each nit-sot output stacked over the steps, the final value of each shared
state.

A recurrent output with taps ``(-3, -1)`` reads, at step ``t``, entries ``t + 3 - 3`` and
``t + 3 - 1`` of its buffer and writes entry ``t + 3``: the buffer starts with ``3`` initial
entries (``n_init``). ``keep[k] = m > 0`` (set by the memory-saving rewrite) keeps only the last
``m`` entries of buffer ``k`` (the loop then uses a ring buffer).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScanInfo:
    """Counts and taps describing a Scan node (immutable and hashable: part of the op)."""

    #: the fields, listed the way op parameters are (the compiledir's graph keys read them)
    __props__ = ("n_seqs", "rec_taps", "n_nit_sot", "n_shared", "n_non_seqs", "as_while",
                 "keep")

    n_seqs: int
    #: per recurrent output, its (negative) taps in the order the step function receives them
    rec_taps: tuple[tuple[int, ...], ...]
    n_nit_sot: int
    n_shared: int
    n_non_seqs: int
    as_while: bool = False
    #: per recurrent output: 0 keeps the whole buffer, m > 0 only its last m entries
    keep: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for taps in self.rec_taps:
            if not taps or any(t >= 0 for t in taps):
                raise ValueError(f"recurrent taps must be negative, got {taps}")
        if not self.keep:
            object.__setattr__(self, "keep", (0,) * len(self.rec_taps))
        if len(self.keep) != len(self.rec_taps):
            raise ValueError("keep needs one entry per recurrent output")

    # -- counts -----------------------------------------------------------------------------
    @property
    def n_rec(self) -> int:
        return len(self.rec_taps)

    def n_init(self, k: int) -> int:
        """How many initial entries the buffer of recurrent output ``k`` starts with."""
        return -min(self.rec_taps[k])

    @property
    def n_rec_taps(self) -> int:
        return sum(len(t) for t in self.rec_taps)

    @property
    def n_inner_inputs(self) -> int:
        return self.n_seqs + self.n_rec_taps + self.n_shared + self.n_non_seqs

    @property
    def n_inner_outputs(self) -> int:
        return self.n_rec + self.n_nit_sot + self.n_shared + int(self.as_while)

    @property
    def n_outer_inputs(self) -> int:
        return 1 + self.n_seqs + self.n_rec + self.n_shared + self.n_non_seqs

    @property
    def n_outer_outputs(self) -> int:
        return self.n_rec + self.n_nit_sot + self.n_shared

    # -- positions of the outer inputs --------------------------------------------------------
    def outer_seqs(self) -> slice:
        return slice(1, 1 + self.n_seqs)

    def outer_inits(self) -> slice:
        start = 1 + self.n_seqs
        return slice(start, start + self.n_rec)

    def outer_shared(self) -> slice:
        start = 1 + self.n_seqs + self.n_rec
        return slice(start, start + self.n_shared)

    def outer_non_seqs(self) -> slice:
        start = 1 + self.n_seqs + self.n_rec + self.n_shared
        return slice(start, start + self.n_non_seqs)

    # -- positions of the inner inputs --------------------------------------------------------
    def inner_seqs(self) -> slice:
        return slice(0, self.n_seqs)

    def inner_taps(self, k: int) -> slice:
        """The inner inputs holding the taps of recurrent output ``k``."""
        start = self.n_seqs + sum(len(t) for t in self.rec_taps[:k])
        return slice(start, start + len(self.rec_taps[k]))

    def inner_shared(self) -> slice:
        start = self.n_seqs + self.n_rec_taps
        return slice(start, start + self.n_shared)

    def inner_non_seqs(self) -> slice:
        start = self.n_seqs + self.n_rec_taps + self.n_shared
        return slice(start, start + self.n_non_seqs)

    # -- positions of the outputs (inner and outer agree up to the condition) ---------------------
    def rec_outputs(self) -> slice:
        return slice(0, self.n_rec)

    def nit_outputs(self) -> slice:
        return slice(self.n_rec, self.n_rec + self.n_nit_sot)

    def shared_outputs(self) -> slice:
        start = self.n_rec + self.n_nit_sot
        return slice(start, start + self.n_shared)

    def with_keep(self, k: int, m: int) -> "ScanInfo":
        keep = list(self.keep)
        keep[k] = m
        return ScanInfo(self.n_seqs, self.rec_taps, self.n_nit_sot, self.n_shared,
                        self.n_non_seqs, self.as_while, tuple(keep))
