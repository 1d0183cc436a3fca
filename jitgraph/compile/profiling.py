"""Per-function profiling statistics (``profile=True``)."""

from __future__ import annotations

from typing import Any


class ProfileStats:
    """Call counts and times of one compiled function."""

    def __init__(self, maker: Any) -> None:
        self.name = maker.name
        self.compile_times = dict(maker.compile_times)
        self.calls = 0
        self.call_time = 0.0
        self.vm_time = 0.0

    def record_call(self, vm_time: float, call_time: float) -> None:
        self.calls += 1
        self.vm_time += vm_time
        self.call_time += call_time

    def summary(self) -> str:
        return (f"Function profiling\n==================\n  Message: {self.name}\n"
                f"  Time in {self.calls} calls to Function.__call__: {self.call_time:.6e}s\n"
                f"  Time in Function.vm.__call__: {self.vm_time:.6e}s\n")
