"""The benchmark pages' figures: plots and tables made from the results JSON that bench/ writes.

    python bench/plot_results.py --collect   # copy the newest bench/results/<kind>-*.json
                                             # into docs/_static/bench/data/, with machine.json
    python bench/plot_results.py             # redraw docs/_static/bench/ from that data

``bench/results/`` is not tracked; ``--collect`` copies the newest result of each kind that this
script can draw into the tracked ``docs/_static/bench/data/`` and records the machine and the
versions it runs (``machine.json``). Run it on the machine that ran the benchmark, right after
it. The documentation shows the committed PNGs and tables, so building the pages needs no
matplotlib; this script does (``pip install matplotlib``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
OUT = HERE.parent / "docs" / "_static" / "bench"
DATA = OUT / "data"
VERSIONS_OF = ("numpy", "numba", "llvmlite", "jax", "jaxlib", "pytensor", "numexpr")


def cpu_model() -> str:
    """The processor's marketing name (Linux), else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """The machine and the package versions the benchmarks ran with."""
    versions = {}
    for name in ("jitgraph", *VERSIONS_OF):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return {"cpu": cpu_model(), "logical_cpus": os.cpu_count(),
            "platform": platform.platform(), "python": platform.python_version(),
            "versions": versions}


def collect() -> list[Path]:
    """Copy the newest result of each drawable kind into DATA; record the machine."""
    DATA.mkdir(parents=True, exist_ok=True)
    copied = []
    for kind in PLOTTERS:
        found = sorted(RESULTS.glob(f"{kind}-*.json"))
        if found:
            for old in DATA.glob(f"{kind}-*.json"):
                old.unlink()
            copied.append(Path(shutil.copy2(found[-1], DATA / found[-1].name)))
    (DATA / "machine.json").write_text(json.dumps(machine(), indent=1) + "\n")
    return copied


# ---------------------------------------------------------------- large-graph (bench_large_graph)

_SERIES = (("jitgraph", "cold", "jitgraph, empty compiledir", "tab:blue", "o-"),
           ("jitgraph", "warm", "jitgraph, compiledir filled", "tab:blue", "o--"),
           ("jax", "cold", "JAX (tracing + XLA)", "tab:orange", "s-"),
           ("pytensor-c", "cold", "PyTensor, C backend", "tab:green", "^-"),
           ("pytensor-numba", "cold", "PyTensor, Numba backend", "tab:red", "v-"))


def _large_graph_table(rows: list[dict]) -> str:
    lines = ["| blocks | nodes (jitgraph) | system | cache | compile (s) | ms per node |",
             "| ---: | ---: | --- | --- | ---: | ---: |"]
    nodes = {r["blocks"]: r["nodes"] for r in rows if r["system"] == "jitgraph"}
    for r in rows:
        lines.append(f"| {r['blocks']} | {nodes.get(r['blocks'], '')} | {r['system']} | "
                     f"{r['cache']} | {r['compile_s']:.3f} | {r['ms_per_node']:.2f} |")
    return "\n".join(lines) + "\n"


def _stage_label(text: str, seconds: float, *rest: object) -> str:
    """A short label: nested stages (indented in the JSON) marked with a dot, the note of a
    rewrite phase (its node counts) kept, the explanations in parentheses dropped. A stage is
    ``(text, wall s, note)`` or, since CPU seconds are recorded too, ``(text, wall s, cpu s,
    note)``."""
    note = str(rest[-1]) if rest else ""
    label = text.strip().split(" (")[0].replace("function(): ", "")
    if note.endswith("nodes"):
        label += f" ({note})"
    return ("· " if text.startswith(" ") else "") + label


def plot_large_graph(data: dict, name: str, plt: Any) -> list[str]:
    rows = data["table"]["rows"]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for system, cache, label, color, style in _SERIES:
        points = sorted((r["blocks"], r["compile_s"]) for r in rows
                        if r["system"] == system and r["cache"] == cache)
        if points:
            ax.plot(*zip(*points), style, color=color, label=label)
    ax.set_xlabel("residual blocks in the training graph")
    ax.set_ylabel("compile time, fresh process (s)")
    ax.set_yscale("log")
    ax.set_title("Compiling a residual network's training step")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    outputs = [f"{name}-compile.png"]
    fig.savefig(OUT / outputs[0])
    plt.close(fig)

    largest = max(r["blocks"] for r in data["rows"] if r.get("stages"))
    cold = next(r for r in data["rows"]
                if r.get("stages") and r["blocks"] == largest and r["cache"] == "cold")
    stages = sorted(cold["stages"], key=lambda s: s[1])[-10:]
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
    labels = [_stage_label(*s) for s in stages]
    ax.barh(range(len(stages)), [s[1] for s in stages], color="tab:blue")
    ax.set_yticks(range(len(stages)), labels, fontsize=7)
    ax.set_xlabel("seconds")
    ax.set_title(f"Where a cold compile of {largest} blocks goes (jitgraph)")
    fig.tight_layout()
    outputs.append(f"{name}-stages.png")
    fig.savefig(OUT / outputs[-1])
    plt.close(fig)

    (OUT / f"{name}-table.md").write_text(_large_graph_table(rows))
    outputs.append(f"{name}-table.md")
    return outputs


#: result kind (the file name's prefix) -> what draws it
PLOTTERS: dict[str, Callable[[dict, str, Any], list[str]]] = {"large-graph": plot_large_graph}


def _machine_text() -> str:
    """machine.json as the sentence the performance page includes (machine.md)."""
    info = json.loads((DATA / "machine.json").read_text())
    versions = ", ".join(f"{name} {v}" for name, v in info["versions"].items())
    (OUT / "machine.md").write_text(
        f"Measured on {info['cpu']} ({info['logical_cpus']} logical CPUs), {info['platform']}, "
        f"Python {info['python']}; {versions}.\n")
    return "machine.md"


def draw() -> list[str]:
    """Redraw every figure from DATA; the names written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = [_machine_text()]
    for kind, plotter in PLOTTERS.items():
        for path in sorted(DATA.glob(f"{kind}-*.json")):
            written += plotter(json.loads(path.read_text()), kind, plt)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--collect", action="store_true",
                        help="first copy the newest results from bench/results (and record "
                             "this machine)")
    args = parser.parse_args(argv)
    if args.collect:
        copied = collect()
        print("collected:", ", ".join(p.name for p in copied) or "nothing")
    for name in draw():
        print("wrote", OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
