"""The memory part of a profile (``profile_memory``): peak memory of the intermediate values.

From the byte size of every value of the last profiled call, it replays the node order and
computes the peak of live intermediate memory (graph inputs are the caller's and not counted):

* with the function's own ``allow_gc`` (a value is freed after its last reader, as the linker
  does; a view or an in-place result keeps its base alive);
* with ``allow_gc=False`` (nothing is freed during the call);
* without in-place rewrites (``optimizer_excluding=inplace``: every destroying output needs its
  own buffer);
* with ``profiling.min_peak_memory``, the smallest peak any valid node order could reach
  (an exact search over orders, given up for graphs that have too many).

Values on a device (not NumPy arrays) are counted separately as GPU memory.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Constant, Variable

#: the exact minimum-peak search stops after visiting this many partial orders
MAX_ORDER_STATES = 200_000


def _base(var: Variable, inplace: bool) -> Variable:
    """The variable owning ``var``'s buffer (through views, and destroys when ``inplace``)."""
    while var.owner is not None:
        op, k = var.owner.op, var.index
        sources = list(op.view_map.get(k, []))
        if inplace:
            sources += op.destroy_map.get(k, [])
        if not sources:
            break
        var = var.owner.inputs[sources[0]]
    return var


class MemoryModel:
    """Sizes and buffer ownership of one program's values (bytes per device)."""

    def __init__(self, order: Sequence[Apply], outputs: Sequence[Variable],
                 sizes: dict[Variable, tuple[int, bool]], inplace: bool = True) -> None:
        self.order = list(order)
        self.outputs = set(outputs)
        self.sizes = sizes  # var -> (nbytes, on_gpu)
        self.inplace = inplace
        self.base = {o: _base(o, inplace) for node in self.order for o in node.outputs}

    def allocated(self, node: Apply) -> tuple[int, int]:
        """Bytes (cpu, gpu) that ``node`` allocates (views and in-place outputs: none)."""
        cpu = gpu = 0
        for out in node.outputs:
            if self.base[out] is out:
                nbytes, on_gpu = self.sizes.get(out, (0, False))
                if on_gpu:
                    gpu += nbytes
                else:
                    cpu += nbytes
        return cpu, gpu

    def peak(self, order: Sequence[Apply] | None = None, gc: bool = True) -> tuple[int, int]:
        """Peak (cpu, gpu) bytes of intermediates when running ``order``."""
        order = self.order if order is None else list(order)
        last_use: dict[Variable, int] = {}
        for i, node in enumerate(order):
            for inp in node.inputs:
                base = self.base.get(inp, inp)
                last_use[base] = i
            for out in node.outputs:
                last_use.setdefault(self.base[out], i)
        for out in self.outputs:
            last_use[self.base.get(out, out)] = len(order)  # returned: alive to the end
        live = [0, 0]
        peak = [0, 0]
        frees: dict[int, list[Variable]] = {}
        for base, i in last_use.items():
            frees.setdefault(i, []).append(base)
        for i, node in enumerate(order):
            cpu, gpu = self.allocated(node)
            live[0] += cpu
            live[1] += gpu
            peak = [max(peak[0], live[0]), max(peak[1], live[1])]
            if gc:
                for base in frees.get(i, []):
                    if base.owner is None or isinstance(base, Constant):
                        continue
                    nbytes, on_gpu = self.sizes.get(base, (0, False))
                    live[1 if on_gpu else 0] -= nbytes
        return peak[0], peak[1]

    def min_peak(self) -> int | None:
        """Smallest total peak over every valid node order (None when there are too many)."""
        nodes = self.order
        index = {node: k for k, node in enumerate(nodes)}
        preds = [{index[i.owner] for i in node.inputs if i.owner in index} for node in nodes]
        readers: dict[Variable, set[int]] = {}
        for k, node in enumerate(nodes):
            for inp in node.inputs:
                readers.setdefault(self.base.get(inp, inp), set()).add(k)
        alloc = [sum(self.allocated(n)) for n in nodes]
        full = (1 << len(nodes)) - 1

        def live_after(done: int) -> int:
            total = 0
            for k, node in enumerate(nodes):
                if not done >> k & 1:
                    continue
                for out in node.outputs:
                    if self.base[out] is not out:
                        continue
                    pending = readers.get(out, set())
                    if out in self.outputs or any(not done >> r & 1 for r in pending):
                        total += self.sizes.get(out, (0, False))[0]
            return total

        best = {0: 0}
        frontier = [0]
        visited = 0
        while frontier:
            nxt: dict[int, int] = {}
            for done in frontier:
                visited += 1
                if visited > MAX_ORDER_STATES:
                    return None
                base_live = live_after(done)
                for k in range(len(nodes)):
                    if done >> k & 1 or any(not done >> p & 1 for p in preds[k]):
                        continue
                    state = done | 1 << k
                    peak = max(best[done], base_live + alloc[k])
                    if peak < nxt.get(state, 1 << 62):
                        nxt[state] = peak
            best.update(nxt)
            frontier = list(nxt)
        return best.get(full)


def _fmt(nbytes: int) -> str:
    return f"{nbytes / 1024:.0f}KB" if nbytes < 1 << 30 else f"{nbytes / (1 << 30):.2f}GB"


def memory_report(programs: Sequence[Any], n_apply: int, min_size: int,
                  min_peak: bool) -> list[str]:
    """The "Memory Profile" lines for the recorded programs (see the module doc)."""
    lines = ["Memory Profile", "--------------",
             "(Sparse variables are ignored; graph inputs are the caller's and not counted)"]
    if not any(p.sizes for p in programs):
        lines.append("  No memory recorded (the function was never called with profile_memory).")
        return lines
    rows: list[tuple[int, str, str, str]] = []
    for p in programs:
        if not p.sizes:
            continue
        model = MemoryModel(p.order, p.outputs, p.sizes)
        no_inplace = MemoryModel(p.order, p.outputs, p.sizes, inplace=False)
        cur, nogc, noinp = model.peak(gc=p.allow_gc), model.peak(gc=False), \
            no_inplace.peak(gc=p.allow_gc)
        setting = "allow_gc=True" if p.allow_gc else "allow_gc=False"
        lines += [f"  {p.label}",
                  f"    Max peak memory with current setting ({setting})",
                  f"        CPU: {_fmt(cur[0])}", f"        GPU: {_fmt(cur[1])}",
                  "    Max peak memory with current setting and optimizer_excluding=inplace",
                  f"        CPU: {_fmt(noinp[0])}", f"        GPU: {_fmt(noinp[1])}",
                  "    Max peak memory if allow_gc=False (linker does not make a difference)",
                  f"        CPU: {_fmt(nogc[0])}", f"        GPU: {_fmt(nogc[1])}",
                  f"    Memory saved if views and in-place ops are used: "
                  f"{_fmt(max(sum(noinp) - sum(cur), 0))}",
                  f"    Memory saved if gc is enabled: {_fmt(max(sum(nogc) - sum(cur), 0))}"]
        if min_peak:
            best = model.min_peak()
            lines.append("    Minimum peak from all valid apply node orders: "
                         + (_fmt(best) if best is not None else
                            f"not computed (more than {MAX_ORDER_STATES} partial orders)"))
        for idx, node in enumerate(p.order):
            total = sum(p.sizes.get(o, (0, False))[0] for o in node.outputs)
            if total < min_size:
                continue
            shapes = [p.shapes.get(o, "?") for o in node.outputs]
            kinds = []
            for j, out in enumerate(node.outputs):
                if model.base[out] is out:
                    kinds.append("c")  # a new buffer
                else:
                    kinds.append("i" if j in node.op.destroy_map else "v")
            rows.append((total, str(shapes), " ".join(kinds), f"{p.prefix}{idx} {node}"))
    rows.sort(key=lambda r: -r[0])
    lines += ["", "    <Sum apply outputs (bytes)> <Apply outputs shape> "
              "<created/inplace/view> <Apply node>"]
    for total, shapes, kinds, name in rows[:n_apply]:
        lines.append(f"     {total:>12d}B  {shapes} {kinds} {name}")
    if len(rows) > n_apply:
        rest = sum(r[0] for r in rows[n_apply:])
        lines.append(f"   ... (remaining {len(rows) - n_apply} Apply account for {rest}B of "
                     "the outputs)")
    lines.append(f"    (nodes whose outputs take fewer than {min_size}B are not listed: "
                 "profiling.min_memory_size)")
    return lines


__all__ = ["MemoryModel", "memory_report", "MAX_ORDER_STATES"]
