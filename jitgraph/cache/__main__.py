"""``jitgraph-cache`` / ``python -m jitgraph.cache``: inspect and maintain the compiledir.

    jitgraph-cache                      print the compiledir
    jitgraph-cache list [--graphs]      one line per entry: kind, what it was built for (native
                                        objects; GPU architecture and NVRTC), size, compile
                                        time, last use, loads, what it computes
    jitgraph-cache stats                count, size, compile time and loads by kind (CPU
                                        kernels, native objects, Numba-cached functions, GPU
                                        kernels by target, rewritten graphs)
    jitgraph-cache explain [ENTRY]      entries of one kernel built under different settings, and
                                        which key parts differ (or the key parts of ENTRY)
    jitgraph-cache cleanup [--unreadable]
                                        delete old entries and rewritten graphs, abandoned
                                        temporary files and quarantined entries (--unreadable:
                                        also the damaged items it could not read)
    jitgraph-cache clear                delete every entry and rewritten graph it can read
    jitgraph-cache purge                delete the whole compiledir (CuPy's kernels included)
    jitgraph-cache unlock               remove every lock (after a crash on a network filesystem)
    jitgraph-cache basecompiledir [list|purge]
                                        print, list or delete base_compiledir

Options (before the command): --compiledir DIR and --base-compiledir DIR read another folder
than the flags name (another Python's compiledir beside this one, say); --all lists every item
that could not be read (else the first 25 of each kind).

Every command reads any compiledir: what it could not read (damaged, half-published, written
by a newer jitgraph, ...) is listed at the end with the reason, and left in place unless the
command says it deletes it; so is what jitgraph would not load because another user could have
written it (the compiledir itself, an entry, a file: see the compiledir_trust flag and
docs/cache.md), which no command deletes.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

from jitgraph.cache import housekeeping, report
from jitgraph.cache.locking import force_unlock
from jitgraph.cache.metadata import CPU_KERNEL, GPU_KERNEL, GRAPH, NATIVE_OBJECT, NUMBA_KERNEL
from jitgraph.cache.store import LOCK_DIR
from jitgraph.cache.survey import (DAMAGED, ENTRY_NAME, GRAPH_NAME, INACCESSIBLE, LINK,
                                   QUARANTINED, STALE_LOCK, Problem, Record, Survey, entry_key,
                                   survey)
from jitgraph.config import ConfigError, config

KIND_LABELS = {CPU_KERNEL: "CPU", GPU_KERNEL: "GPU", GRAPH: "graph", "": "?"}


class _Options:
    def __init__(self) -> None:
        self.compiledir: str | None = None
        self.base: str | None = None
        self.show_all = False


def _built_for(record: Record) -> str:
    """What a list line says the entry was built as: native objects, GPU target, program."""
    if record.kind == GPU_KERNEL:
        arch = record.arch or "arch ?"
        return f"{arch}, NVRTC {record.nvrtc}" if record.nvrtc else arch
    if record.kind == GRAPH:
        details = record.info.details if record.info is not None else {}
        return "graph+program" if details.get("program") else "graph"
    kinds = [f.kind for f in record.functions]
    native, numba = kinds.count(NATIVE_OBJECT), kinds.count(NUMBA_KERNEL)
    parts = [f"{native} native"] if native else []
    parts += [f"{numba} Numba"] if numba else []
    return ", ".join(parts) or "-"


def _list_row(record: Record, now: float) -> list[str]:
    description = record.description if record.readable else f"[unreadable] {record.description}"
    return [KIND_LABELS.get(record.kind, record.kind), record.name, _built_for(record),
            report.size(record.size), report.seconds(record.seconds),
            report.age(now - record.last_use) if record.last_use else "?",
            str(record.hits) if record.kind != GRAPH else "-", report.clip(description, 70)]


def _summary(found: Survey) -> str:
    cpu, gpu = found.of_kind(CPU_KERNEL), found.of_kind(GPU_KERNEL)
    functions = [f for r in cpu for f in r.functions]
    native = sum(f.kind == NATIVE_OBJECT for f in functions)
    numba = sum(f.kind == NUMBA_KERNEL for f in functions)
    graphs = found.of_kind(GRAPH)
    other = len(found.records) - len(cpu) - len(gpu) - len(graphs)
    text = (f"{report.plural(len(cpu) + len(gpu) + other, 'entry', 'entries')}: "
            f"{report.plural(len(cpu), 'CPU kernel')} ({report.plural(native, 'native object')}"
            f", {report.plural(numba, 'Numba-cached function')}), "
            f"{report.plural(len(gpu), 'GPU kernel')}")
    if other:
        text += f", {other} of unknown kind"
    return text + f"; {report.plural(len(graphs), 'rewritten graph')} " \
                  f"({report.size(sum(g.size for g in graphs))})"


def cmd_list(root: Path, options: _Options, graphs: bool) -> int:
    found = survey(root)
    print(f"jitgraph cache: {root}" + ("" if found.exists else " (not created yet)"))
    print(_summary(found))
    now = time.time()
    shown = [r for r in found.records if graphs or r.kind != GRAPH]
    if shown:
        print()
        for line in report.table(["KIND", "ENTRY", "BUILT AS", "SIZE", "COMPILE", "LAST USE",
                                  "LOADS", "WHAT"], (_list_row(r, now) for r in shown),
                                 "...rrrr."):
            print(line)
    if not graphs and found.of_kind(GRAPH):
        print(f"(rewritten graphs are in {root / 'graphs'}; `list --graphs` lists them)")
    _close(found.problems, root, options)
    return 0


def _stats_row(label: str, records: list[Record], loads: bool = True) -> list[str]:
    return [label, f"{len(records):,}", report.size(sum(r.size for r in records)),
            report.seconds(sum(r.seconds for r in records)),
            f"{sum(r.hits for r in records):,}" if loads else ""]


def cmd_stats(root: Path, options: _Options) -> int:
    found = survey(root)
    cpu, gpu, graphs = found.of_kind(CPU_KERNEL), found.of_kind(GPU_KERNEL), found.of_kind(GRAPH)
    unknown = found.of_kind("")
    functions = [f for r in cpu for f in r.functions]
    rows = [_stats_row("CPU kernels", cpu)]
    for kind, label in ((NATIVE_OBJECT, "  native objects"), (NUMBA_KERNEL, "  Numba-cached")):
        members = [f for f in functions if f.kind == kind]
        rows.append([label, f"{len(members):,}", report.size(sum(f.size for f in members)),
                     report.seconds(sum(f.seconds for f in members)), ""])
    rows.append(_stats_row("GPU kernels", gpu))
    targets: dict[str, list[Record]] = defaultdict(list)
    for record in gpu:
        targets[f"  {record.arch or 'arch ?'}, NVRTC {record.nvrtc or '?'}"].append(record)
    rows += [_stats_row(label, members) for label, members in sorted(targets.items())]
    rows.append(_stats_row("rewritten graphs", graphs, loads=False))
    if unknown:
        rows.append(_stats_row("unknown kind", unknown))
    top = cpu + gpu + graphs + unknown
    rows.append(["total", f"{len(top):,}", report.size(sum(r.size for r in top)),
                 report.seconds(sum(r.seconds for r in top)), f"{sum(r.hits for r in top):,}"])
    print(f"compiledir: {root}" + ("" if found.exists else " (not created yet)"))
    print()
    for line in report.table(["", "COUNT", "SIZE", "COMPILE TIME", "LOADS"], rows, ".rrrr"):
        print(line)
    print("(native objects and Numba-cached functions are parts of the CPU kernels above "
          "them;\n loads are counted across processes)")
    quarantined = sum(p.category == QUARANTINED for p in found.problems)
    stale = sum(p.category == STALE_LOCK for p in found.problems)
    print(f"quarantined entries: {quarantined}; compile locks: {found.locks:,} "
          f"({stale} stale)")
    _close(found.problems, root, options)
    return 0


def cmd_explain(root: Path, options: _Options, name: str | None) -> int:
    if name is not None:
        return _explain_one(root, options, name)
    found = survey(root)
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in found.of_kind(CPU_KERNEL, GPU_KERNEL):
        groups[record.name.split("-")[0]].append(record)
    shown = 0
    for kernel, members in sorted(groups.items()):
        if len(members) < 2:  # keys are loaded only to compare them
            continue
        keys = []
        for record in members:
            try:
                keys.append((record, entry_key(record.path)))
            except (OSError, ValueError) as exc:
                if all(p.path.parent != record.path for p in found.problems):
                    found.add(record.path / "key.pkl", f"cannot be loaded ({exc})", DAMAGED,
                              record.path)
        if len(keys) < 2:
            continue
        shown += 1
        (first, first_key), rest = keys[0], keys[1:]
        print(f"kernel {kernel}: {len(keys)} entries")
        for record, key in rest:
            print(f"  {record.name} differs from {first.name} in: "
                  f"{', '.join(key.differences(first_key)) or 'nothing'}")
    if not shown:
        print("no kernel has entries under different settings (no unexpected misses)")
    _close(found.problems, root, options)
    return 0


def _explain_one(root: Path, options: _Options, name: str) -> int:
    stem = name.removesuffix(".pkl")
    target = root / name if ENTRY_NAME.fullmatch(name) else \
        root / "graphs" / f"{stem}.pkl" if GRAPH_NAME.fullmatch(stem) else None
    if target is None or not os.path.lexists(target):
        print(f"no entry {name} in {root}", file=sys.stderr)
        return 1
    found = survey(root, graphs=target.parent != root)
    record = next((r for r in found.records if r.path == target), None)
    mine = [p for p in found.problems if stem in str(p.path)]
    if record is None:
        print(f"{name} is not an entry that can be read")
        _close(mine, root, options)
        return 0
    print(f"{record.name}: {KIND_LABELS.get(record.kind, record.kind)}, "
          f"{_built_for(record)}, {report.size(record.size)}")
    print(f"  what:      {record.description}")
    if record.info is not None:
        print(f"  metadata:  schema {record.info.schema}"
              + (f", written by jitgraph {record.info.written_by}" if record.info.written_by
                 else ""))
        for part, secs in record.info.compile_seconds.items():
            print(f"  compiled:  {part} in {report.seconds(secs)}")
    if record.kind != GRAPH:
        try:
            for part, value in entry_key(record.path).parts:
                print(f"{part:10s} {value!r}")
        except (OSError, ValueError) as exc:
            if not any(p.path.parent == record.path for p in mine):
                mine.append(Problem(record.path / "key.pkl", f"cannot be loaded ({exc})",
                                    DAMAGED, (record.path,)))
    _close(mine, root, options)
    return 0


def cmd_cleanup(root: Path, options: _Options, unreadable: bool) -> int:
    removed = housekeeping.cleanup(root, unreadable=unreadable)
    print(f"removed {removed.entries} old entries, {removed.tmp} temporary items, "
          f"{removed.quarantine} quarantined entries, {removed.graphs} rewritten graphs"
          + (f", {removed.damaged} damaged items it could not read" if unreadable else ""))
    _close(removed.deleted, root, options, "deleted", hints=False)
    _close(removed.left, root, options, "left")
    return 0


def cmd_clear(root: Path, options: _Options) -> int:
    removed = housekeeping.clear(root)
    print(f"removed {removed.entries} entries and {removed.graphs} rewritten graphs from {root}")
    _close(removed.deleted, root, options, "deleted", hints=False)
    _close(removed.left, root, options, "left")
    return 0


def cmd_basecompiledir(base: Path, current: Path, options: _Options, args: list[str]) -> int:
    if not args:
        print(base)
        return 0
    if args[0] == "purge":
        if base.is_symlink():
            print(f"{base} is a symbolic link: not removed (remove it, or its target, yourself)")
            return 0
        shutil.rmtree(base, ignore_errors=True)
        print(f"removed {base}")
        return 0
    if args[0] != "list":
        return _usage(f'basecompiledir does not know "{args[0]}"')
    print(f"Base compile dir is {base}")
    found = Survey(base)
    try:
        with os.scandir(base) as it:
            items = sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        items = []
    except OSError as exc:
        items = []
        found.add(base, f"cannot be listed ({exc.strerror or exc})", INACCESSIBLE)
    folders = [i for i in items if i.is_dir(follow_symlinks=False)]
    print("Sub-directories (possible compile caches):")
    for item in folders:
        print(f"    {item.name}{_compiledir_note(base / item.name, current, found)}")
    files = [i for i in items if not i.is_dir(follow_symlinks=False)]
    print("Other files in base_compiledir:" if files else "No other files in base_compiledir")
    for item in files:
        if item.is_symlink():
            found.add(base / item.name, "a symbolic link", LINK)
        print(f"    {item.name}")
    _close(found.problems, base, options)
    return 0


def _compiledir_note(path: Path, current: Path, found: Survey) -> str:
    """Whose compiledir ``path`` is, and how many entries it has (by their names alone)."""
    if not path.name.startswith("compiledir"):
        return ""
    try:
        with os.scandir(path) as it:
            count = sum(1 for e in it if ENTRY_NAME.fullmatch(e.name))
    except OSError as exc:
        found.add(path, f"cannot be listed ({exc.strerror or exc})", INACCESSIBLE)
        return ""
    same = os.path.realpath(path) == os.path.realpath(current)
    whose = "this jitgraph's" if same else "another Python, platform or compiledir_format"
    return f"  ({whose}: {report.plural(count, 'entry', 'entries')})"


def _close(problems: list[Problem], root: Path, options: _Options,
           what: str = "could not read", hints: bool = True) -> None:
    for line in report.problems(problems, root, options.show_all, what, hints):
        print(line)


def _usage(error: str | None = None) -> int:
    if error:
        print(f"jitgraph-cache: {error}\n", file=sys.stderr)
    print(__doc__.strip(), file=sys.stderr if error else sys.stdout)
    return 1 if error else 0


def _parse(args: list[str]) -> tuple[_Options, list[str]] | str:
    """Options before the command, and the rest; or what is wrong."""
    options = _Options()
    while args and args[0].startswith("--"):
        flag, _, value = args.pop(0).partition("=")
        if flag == "--all":
            options.show_all = True
            continue
        if flag not in ("--compiledir", "--base-compiledir"):
            return f"unknown option {flag}"
        if not value:
            if not args:
                return f"{flag} needs a folder"
            value = args.pop(0)
        setattr(options, "compiledir" if flag == "--compiledir" else "base", value)
    return options, args


def main(argv: list[str] | None = None) -> int:
    """Run one ``jitgraph-cache`` command; the exit status (0 on any compiledir)."""
    parsed = _parse(sys.argv[1:] if argv is None else list(argv))
    if isinstance(parsed, str):
        return _usage(parsed)
    options, args = parsed
    if args and args[0] in ("help", "-h", "--help"):
        return _usage()
    try:
        root = Path(os.path.realpath(options.compiledir or str(config.compiledir)))
        base = Path(options.base or str(config.base_compiledir))
    except ConfigError as exc:
        print(f"jitgraph-cache: {exc}", file=sys.stderr)
        return 1
    if args and args[0] == "basecompiledir":
        return cmd_basecompiledir(base, root, options, args[1:])
    command, rest = (args[0], args[1:]) if args else ("", [])
    flags = {a for a in rest if a.startswith("--")}
    allowed = {"list": {"--graphs", "--all"}, "cleanup": {"--unreadable", "--all"}}
    if flags - allowed.get(command, {"--all"}):
        return _usage(f"{command} does not take {', '.join(sorted(flags))}")
    options.show_all |= "--all" in flags
    rest = [a for a in rest if not a.startswith("--")]
    if not command:
        print(root)
        return 0
    if command == "list":
        return cmd_list(root, options, "--graphs" in flags)
    if command == "stats":
        return cmd_stats(root, options)
    if command == "explain":
        return cmd_explain(root, options, rest[0] if rest else None)
    if command == "cleanup":
        return cmd_cleanup(root, options, "--unreadable" in flags)
    if command == "clear":
        return cmd_clear(root, options)
    if command == "purge":
        if root.is_symlink() or not root.is_dir():
            print(f"{root} is not a folder: nothing removed")
            return 0
        shutil.rmtree(root, ignore_errors=True)
        print(f"removed {root}")
        return 0
    if command == "unlock":
        n = 0 if (root / LOCK_DIR).is_symlink() else force_unlock(root / LOCK_DIR)
        print(f"Lock successfully removed! ({n} files)")
        return 0
    return _usage(f'command "{command}" not recognized')


if __name__ == "__main__":
    sys.exit(main())
