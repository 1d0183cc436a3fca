"""The tables and the closing report of ``jitgraph-cache``: sizes, ages, aligned columns, and
what could not be read (grouped by what cleanup does with it)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Iterable, Sequence

from jitgraph.cache.survey import HINTS, UNTRUSTED, Problem

#: lines shown per kind of problem unless ``--all`` is given
SHOWN_PER_CATEGORY = 25
#: the categories in the order the report lists them, with their heading
HEADINGS = {"damaged": "damaged", "newer": "written by a newer jitgraph",
            "unknown": "not jitgraph's", "link": "symbolic links",
            "inaccessible": "refused by the system", "partial": "half-published",
            "quarantined": "quarantined", "stale-lock": "stale locks",
            "untrusted": "not loaded: writable by, or owned by, another user"}


def size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def seconds(s: float) -> str:
    return f"{s:.2f} s" if s < 600 else f"{s / 60:.1f} min"


def age(delta: float) -> str:
    if delta < 0:
        return "in the future"
    if delta < 120:
        return f"{delta:.0f}s ago"
    if delta < 7200:
        return f"{delta / 60:.0f}m ago"
    if delta < 172800:
        return f"{delta / 3600:.0f}h ago"
    return f"{delta / 86400:.0f}d ago"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def clip(text: str, width: int) -> str:
    text = " ".join(text.split())  # descriptions may hold newlines
    return text if len(text) <= width else text[:width - 3] + "..."


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], right: str = "") -> list[str]:
    """Aligned lines; ``right`` marks right-aligned columns with 'r' (e.g. '..rr.')."""
    rows = [list(headers), *[list(r) for r in rows]]
    widths = [max(len(r[c]) for r in rows) for c in range(len(headers))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if right[c:c + 1] == "r" else cell.ljust(w)
                 for c, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


def shown_path(path: Path, root: Path) -> str:
    """``path`` relative to the compiledir when it is inside it."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        return str(path)
    return str(relative) if relative.parts else str(path)


def problems(found: Sequence[Problem], root: Path, show_all: bool = False,
             what: str = "could not read", hints: bool = True) -> list[str]:
    """The closing report: each item that could not be read, its path and why, grouped by
    what cleanup does with it (``hints``: say what); empty when there is none."""
    if not found:
        return []
    groups: dict[str, list[Problem]] = defaultdict(list)
    for problem in found:
        groups[problem.category].append(problem)
    if what == "could not read" and all(p.category == UNTRUSTED for p in found):
        what = "would not load"  # read, but another user could have written them
    lines = ["", f"{what} {plural(len(found), 'item')} (paths in {root}):"]
    for category in [*HEADINGS, *sorted(set(groups) - set(HEADINGS))]:
        members = groups.get(category)
        if not members:
            continue
        hint = f": {HINTS.get(category, 'left alone')}" if hints else ""
        lines.append(f"  {HEADINGS.get(category, category)} ({len(members)}){hint}")
        limit = len(members) if show_all else SHOWN_PER_CATEGORY
        for problem in members[:limit]:
            line = f"    {shown_path(problem.path, root)}: {problem.reason}"
            if not hints and problem.remove and problem.remove != (problem.path,):
                line += f" (deleted {', '.join(shown_path(p, root) for p in problem.remove)})"
            lines.append(line)
        if len(members) > limit:
            lines.append(f"    ... and {len(members) - limit} more (--all lists every one)")
    return lines
