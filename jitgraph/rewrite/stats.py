"""Counts and timings of a rewrite run, for ``profile_optimizer`` and for tests.

Counts are always collected (they cost a dict update per applied rewrite); per-rewrite times only
when ``profile_optimizer`` is on, because timing every attempt would double the cost of cheap
rewrites. Phase times are always collected.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class RewriteRecord:
    """What happened to one named rewrite during a run."""

    applied: int = 0    # replacements accepted
    rejected: int = 0   # replacements undone because a feature refused the graph
    failed: int = 0     # the rewrite raised (handled by ``on_opt_error``)
    time: float = 0.0   # seconds spent in the rewrite (only with profile_optimizer)


@dataclass
class PhaseRecord:
    """One graph rewriter (phase) run: its time and the graph size around it."""

    name: str
    time: float
    nodes_before: int
    nodes_after: int
    reverted: bool = False
    cpu_time: float = 0.0  # this process's CPU seconds (``time`` is wall)


@dataclass
class RewriteStats:
    """Everything recorded while rewriting one graph; ``fgraph.rewrite_stats`` after a run."""

    rewrites: dict[str, RewriteRecord] = field(default_factory=dict)
    phases: list[PhaseRecord] = field(default_factory=list)
    #: equilibrium phases that stopped at the ``max_use_ratio`` bound, with the looping rewrite
    loops: list[tuple[str, str]] = field(default_factory=list)
    validate_time: float = 0.0
    total_time: float = 0.0

    def record(self, name: str) -> RewriteRecord:
        """The (created on first use) record of the rewrite called ``name``."""
        rec = self.rewrites.get(name)
        if rec is None:
            rec = self.rewrites[name] = RewriteRecord()
        return rec

    def applied(self, name: str) -> int:
        """How many replacements the rewrite called ``name`` made."""
        rec = self.rewrites.get(name)
        return rec.applied if rec else 0

    @property
    def total_applied(self) -> int:
        return sum(r.applied for r in self.rewrites.values())

    def merge(self, other: RewriteStats) -> None:
        """Add ``other``'s counts and times to these (e.g. several graphs of one function)."""
        for name, rec in other.rewrites.items():
            mine = self.record(name)
            mine.applied += rec.applied
            mine.rejected += rec.rejected
            mine.failed += rec.failed
            mine.time += rec.time
        self.phases.extend(other.phases)
        self.loops.extend(other.loops)
        self.validate_time += other.validate_time
        self.total_time += other.total_time

    def summary(self, file: TextIO | None = None) -> None:
        """Print the phases and the rewrites applied, slowest first (what the profiler shows)."""
        out = file or sys.stdout
        print(f"Rewriter profile: {self.total_time:.3e}s in total, "
              f"{self.validate_time:.3e}s validating", file=out)
        print("  phases:", file=out)
        for ph in self.phases:
            note = " (reverted)" if ph.reverted else ""
            print(f"    {ph.time:.3e}s  {ph.name}  nodes {ph.nodes_before} -> "
                  f"{ph.nodes_after}{note}", file=out)
        print("  rewrites (time, applied, rejected, failed, name):", file=out)
        order = sorted(self.rewrites.items(), key=lambda kv: (-kv[1].time, -kv[1].applied, kv[0]))
        for name, rec in order:
            counts = f"{rec.applied:6d} {rec.rejected:6d} {rec.failed:6d}"
            print(f"    {rec.time:.3e}s  {counts}  {name}", file=out)
        for phase, rewrite in self.loops:
            print(f"  {phase} stopped at the max_use_ratio bound (rewrite {rewrite})", file=out)
