"""``ScanProfileStats``: the profile of a loop op (Theano's scan profile).

A loop op that is profiled counts its calls (``callcount``), the iterations they ran
(``nbsteps``), the time of the whole calls (``call_time``) and the part spent running the inner
function (``vm_call_time``); the rest is the loop's own overhead (slicing sequences, copying
outputs). :meth:`ScanProfileStats.summary` reports them, followed by the profile of the inner
function recorded through the usual :class:`~jitgraph.compile.profiling.ProfileStats` hooks.
"""

from __future__ import annotations

from typing import Any

from jitgraph.compile.profiling import ProfileStats


class ScanProfileStats(ProfileStats):
    """Profile of one loop op: calls, iterations and the time inside and around its body."""

    def __init__(self, atexit_print: bool = True, name: str | None = None, **kwargs: Any
                 ) -> None:
        super().__init__(message=kwargs.pop("message", None) or name,
                         atexit_print=atexit_print, **kwargs)
        self.name = name
        self.callcount = 0
        self.nbsteps = 0
        self.call_time = 0.0
        #: id(inner program) -> the timed run of that program (attached once)
        self._inner_runs: dict[int, Any] = {}
        #: the inner nodes of a loop that ran as one native kernel (not timed one by one)
        self.native_nodes: list[Any] = []

    def __getstate__(self) -> dict:
        # the timed runs wrap this process's compiled programs (closures, which do not
        # pickle): a pickled loop attaches them again on its first step
        state = dict(self.__dict__)
        state["_inner_runs"] = {}
        return state

    def inner_run(self, fn: Any) -> Any:
        """What a step runs instead of ``fn.run``: the inner function's program with its
        nodes timed into this profile (``fn`` is an InnerFunction)."""
        run = self._inner_runs.get(id(fn.program))
        if run is None:
            run = self._inner_runs[id(fn.program)] = self.attach(fn.maker, fn.program)
        return run

    def note_native(self, nodes: Any) -> None:
        """Record that the loop runs as one native kernel computing ``nodes`` (the rewritten
        inner graph's nodes, listed in the summary without separate times)."""
        if not self.native_nodes:
            self.native_nodes = list(nodes)

    def record_loop(self, steps: int, seconds: float, inner_seconds: float) -> None:
        """Count one call of the loop that ran ``steps`` iterations in ``seconds``, of which
        ``inner_seconds`` inside the inner function."""
        self.callcount += 1
        self.nbsteps += int(steps)
        self.call_time += float(seconds)
        self.vm_call_time += float(inner_seconds)

    def summary(self, file: Any = None, n_ops_to_print: int | None = None,
                n_apply_to_print: int | None = None) -> str:
        """The loop's own numbers, then the inner function's profile."""
        lines = [f"Scan Op profiling ( {self.name} )", "==================",
                 f"  Message: {self.message}",
                 (f"  Time in {self.callcount} calls of the op (for a total of {self.nbsteps} "
                  f"steps) {self.call_time:.6e}s")]
        if self.call_time > 0:
            inner, overhead = self.vm_call_time, max(self.call_time - self.vm_call_time, 0.0)
            lines += ["",
                      (f"  Total time spent in calling the VM {inner:.6e}s "
                       f"({100 * inner / self.call_time:.3f}%)"),
                      (f"  Total overhead (computing slices..) {overhead:.6e}s "
                       f"({100 * overhead / self.call_time:.3f}%)")]
        if self.native_nodes:
            lines += ["", f"  The loop ran as one native kernel (no Python per step); its "
                      f"{len(self.native_nodes)} inner nodes are not timed one by one:"]
            lines += [f"    {node}" for node in self.native_nodes]
        text = "\n".join(lines) + "\n"
        if self.records:  # the inner function ran step by step: its nodes' times
            text += "\n" + super().summary(n_ops_to_print=n_ops_to_print,
                                           n_apply_to_print=n_apply_to_print)
        if file is not None:
            file.write(text)
        return text


__all__ = ["ScanProfileStats"]
