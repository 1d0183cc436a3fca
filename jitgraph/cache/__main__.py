"""``jitgraph-cache`` / ``python -m jitgraph.cache``: inspect and maintain the compiledir.

    jitgraph-cache                      print the compiledir
    jitgraph-cache list                 one line per entry: kind, ops, types, size, compile time,
                                        last use, loads; then the number of rewritten graphs
    jitgraph-cache stats                entries, size, compile time, loads, rewritten graphs
    jitgraph-cache explain [ENTRY]      entries of one kernel built under different settings, and
                                        which key parts differ (or the key parts of ENTRY)
    jitgraph-cache cleanup              delete old entries and rewritten graphs, abandoned
                                        temporary folders and quarantined entries
    jitgraph-cache clear                delete every entry and rewritten graph
    jitgraph-cache purge                delete the whole compiledir (CuPy's kernels included)
    jitgraph-cache unlock               remove every lock (after a crash on a network filesystem)
    jitgraph-cache basecompiledir [list|purge]
                                        print, list or delete base_compiledir
"""

from __future__ import annotations

import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

from jitgraph.cache import store
from jitgraph.cache.locking import force_unlock
from jitgraph.config import config


def _fmt_size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m ago"
    if seconds < 172800:
        return f"{seconds / 3600:.0f}h ago"
    return f"{seconds / 86400:.0f}d ago"


def cmd_list(root: Path) -> int:
    items = store.entries(root)
    print(f"jitgraph cache: {root}")
    print(f"{len(items)} entries")
    now = time.time()
    for entry in items:
        info = entry.info()
        compile_s = sum(info.get("compile_seconds", {}).values())
        print(f"{entry.path.name}  {info.get('kind', '?'):10s} {info.get('description', '')[:60]:60s}"
              f"  {_fmt_size(entry.size()):>9s}  compile {compile_s:6.2f}s"
              f"  used {_age(now - entry.last_use())}  loads {entry.hits()}")
    graphs = store.graphs(root)
    if graphs:
        print(f"{len(graphs)} rewritten graphs in {store.GRAPHS}/ "
              f"({_fmt_size(sum(p.stat().st_size for p in graphs))})")
    return 0


def cmd_stats(root: Path) -> int:
    items = store.entries(root)
    size = sum(e.size() for e in items)
    compile_s = sum(sum(e.info().get("compile_seconds", {}).values()) for e in items)
    loads = sum(e.hits() for e in items)
    quarantined = len(list((root / store.QUARANTINE).iterdir())) \
        if (root / store.QUARANTINE).is_dir() else 0
    print(f"compiledir:        {root}")
    print(f"entries:           {len(items)}")
    print(f"size:              {_fmt_size(size)}")
    print(f"compile time:      {compile_s:.2f}s (sum over entries)")
    print(f"loads from disk:   {loads} (hits recorded across processes)")
    print(f"quarantined:       {quarantined}")
    graphs = store.graphs(root)
    print(f"rewritten graphs:  {len(graphs)} "
          f"({_fmt_size(sum(p.stat().st_size for p in graphs))})")
    return 0


def cmd_explain(root: Path, name: str | None) -> int:
    if name is not None:
        path = root / name
        if not path.is_dir():
            print(f"no entry {name} in {root}", file=sys.stderr)
            return 1
        key = store.Entry(path).key()
        for part, value in key.parts:
            print(f"{part:10s} {value!r}")
        return 0
    groups: dict[str, list[store.Entry]] = defaultdict(list)
    for entry in store.entries(root):
        groups[entry.path.name.split("-")[0]].append(entry)
    shown = 0
    for kernel, members in sorted(groups.items()):
        if len(members) < 2:
            continue
        shown += 1
        first = members[0].key()
        print(f"kernel {kernel}: {len(members)} entries")
        for other in members[1:]:
            diff = other.key().differences(first)
            print(f"  {other.path.name} differs from {members[0].path.name} in: "
                  f"{', '.join(diff)}")
    if not shown:
        print("no kernel has entries under different settings (no unexpected misses)")
    return 0


def cmd_basecompiledir(args: list[str]) -> int:
    base = Path(config.base_compiledir)
    if not args:
        print(base)
        return 0
    if args[0] == "list":
        print(f"Base compile dir is {base}")
        if base.is_dir():
            subdirs = [p for p in sorted(base.iterdir()) if p.is_dir()]
            print("Sub-directories (possible compile caches):")
            for p in subdirs:
                print(f"    {p.name}")
            files = [p for p in sorted(base.iterdir()) if not p.is_dir()]
            print("Other files in base_compiledir:" if files else "No other files in base_compiledir")
            for p in files:
                print(f"    {p.name}")
        return 0
    if args[0] == "purge":
        shutil.rmtree(base, ignore_errors=True)
        print(f"removed {base}")
        return 0
    return _usage(f'basecompiledir does not know "{args[0]}"')


def _usage(error: str | None = None) -> int:
    if error:
        print(f"jitgraph-cache: {error}\n", file=sys.stderr)
    print(__doc__.strip(), file=sys.stderr if error else sys.stdout)
    return 1 if error else 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in ("help", "-h", "--help"):
        return _usage()
    if args and args[0] == "basecompiledir":
        return cmd_basecompiledir(args[1:])
    root = store.compiledir()
    if not args:
        print(root)
        return 0
    command, rest = args[0], args[1:]
    if command == "list":
        return cmd_list(root)
    if command == "stats":
        return cmd_stats(root)
    if command == "explain":
        return cmd_explain(root, rest[0] if rest else None)
    if command == "cleanup":
        removed = store.cleanup(root)
        print(f"removed {removed['entries']} old entries, {removed['tmp']} temporary folders, "
              f"{removed['quarantine']} quarantined entries, {removed['graphs']} rewritten graphs")
        return 0
    if command == "clear":
        print(f"removed {store.clear(root)} entries from {root}")
        return 0
    if command == "purge":
        shutil.rmtree(root, ignore_errors=True)
        print(f"removed {root}")
        return 0
    if command == "unlock":
        n = force_unlock(root / store.LOCK_DIR)
        print(f"Lock successfully removed! ({n} files)")
        return 0
    return _usage(f'command "{command}" not recognized')


if __name__ == "__main__":
    sys.exit(main())
