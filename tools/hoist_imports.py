#!/usr/bin/env python3
"""Move jitgraph's imports of its own modules out of functions to module level, where allowed.

An import of a jitgraph module made inside a function is only for an optional external dependency
(numba, cupy, scipy, dask stay lazy); most of the others were made to dodge an import cycle that no
longer exists, or never did. This tool finds every such import (``import jitgraph.x``,
``from jitgraph.x import y``, relative imports of package modules) with ``ast``/``symtable`` and
hoists one when every check passes:

  upward     the target's subpackage is in the importing module's layer or a lower one. The
             layers come from the ``layers``/``independence`` contracts of
             ``[tool.importlinter]`` in pyproject.toml when there is one, else from
             ``DEFAULT_LAYERS`` (hoist_imports_read.py). A top-level name in no layer counts as
             the top floor (the Theano facade): it may import anything, nothing below may import it.
  cycle      the module-level import graph stays acyclic. The graph holds what importing a module
             runs: its direct targets and their parent packages (not its own parents, always
             initialised first), with the imports hoisted so far in this run.
  clash      the bound name means one thing in the whole module: not bound at module level
             (unless by the same import), not a builtin, not a local or parameter of another
             function, not a global read elsewhere, not a submodule of the package, not a name the
             module's ``__getattr__`` serves, not exported by a ``from M import *`` elsewhere; and
             the function binds it with this import only (no ``global``, no other assignment).
  heavy      importing the module does not start loading an external package it did not load
             before (anything but the standard library, numpy and filelock: numba, cupy, scipy,
             dask...), and ``import jitgraph`` / ``import jitgraph.tensor`` (their load sets
             measured in a fresh interpreter) load at most ``--max-root-growth`` (0) more modules.
  optional   not under ``if TYPE_CHECKING``, not in a ``try`` that catches ImportError (or any
             broader exception), and the target does not raise when imported (a removed path).
  dynamic    ``from X import name``: ``name`` is bound in X statically (not served by X's module
             ``__getattr__``, which imports modules the graph cannot see).
  mutable    ``from X import name``: ``name`` is not rebound at run time (``global`` in X,
             ``setattr``/``monkeypatch.setattr`` or ``module.name = ...`` in the package or its
             tests), which a module-level copy would no longer follow.
  side-effect the function reads none of the names it imports: the import is for its side effect
             (registering something on first use), and its timing is the point.
  layout     the statement shares a line with another statement, or sits in a class body.
Candidates are tried downward edges first (by layer, then by depth in the import graph), so that
of two imports that would close a cycle the one that follows the existing order moves.

Edits are made line by line from ``ast`` positions: the statement leaves its function (``pass``
where a block would be empty; a blank line left after a block opener or docstring goes too), and
the import joins the package's imports at the top of the module, merged into a ``from X import``
of the same module that holds no comment, else as its own line in sorted place (lines within 100
characters). An import the module already has at module level is only deleted. The tool repeats
until nothing moves (a hoist can bind a name another module imports from it), so running it on
its own output changes nothing.

Files: hoist_imports.py (command line, figures, --verify), hoist_imports_read.py (the package,
its imports, facts, layers), hoist_imports_plan.py (the checks), hoist_imports_edit.py (edits).

Usage (from the repository root):
    python tools/hoist_imports.py --check        # counts by category, and the figures reached
    python tools/hoist_imports.py                # rewrite the files
    python tools/hoist_imports.py --check --summary      # what stays, by subpackage pair
    python tools/hoist_imports.py --check --list skipped-upward   # those imports, with reasons
    python tools/hoist_imports.py --verify       # import every module in a fresh process, and
                                                 # the load set and time of the two roots
"""
from __future__ import annotations

import argparse
import ast
import collections
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from hoist_imports_edit import rewrite
from hoist_imports_plan import Planner
from hoist_imports_read import (FUNCTION_NODES, ROOTS, Module, direct_targets, discover,
                                is_type_checking, subpackage)

CATEGORIES = ("hoisted", "skipped-upward", "skipped-cycle", "skipped-clash", "skipped-heavy",
              "skipped-optional", "skipped-dynamic", "skipped-mutable", "skipped-side-effect",
              "skipped-layout")


# ----------------------------------------------------------------------------------------------
# Figures (as /work/shared/tools/layers.py computes them)


def figures(texts: dict[str, str], mods: dict[str, Module]):
    lazy = 0
    lines = 0
    graph = collections.defaultdict(set)
    for name, text in texts.items():
        lines += len(text.splitlines())
        tree = ast.parse(text)
        m = mods[name]

        def walk(node, in_function):
            nonlocal lazy
            for ch in ast.iter_child_nodes(node):
                if isinstance(ch, (ast.Import, ast.ImportFrom)):
                    ts = direct_targets(m, ch, mods)
                    if in_function:
                        lazy += len(ts)
                    else:
                        graph[name] |= set(ts)
                elif isinstance(ch, FUNCTION_NODES):
                    walk(ch, True)
                elif is_type_checking(ch):
                    continue
                else:
                    walk(ch, in_function)
        walk(tree, False)
    return lazy, lines / 1000, largest_cycle(graph)


def largest_cycle(graph) -> int:
    index, low, stack, on, best, counter = {}, {}, [], set(), [0], [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            size = 0
            while True:
                w = stack.pop()
                on.discard(w)
                size += 1
                if w == v:
                    break
            if size > 1:
                best[0] = max(best[0], size)
    for v in list(graph):
        if v not in index:
            visit(v)
    return best[0]


# ----------------------------------------------------------------------------------------------
# Verification


def verify(root: str, mods, jobs: int) -> int:
    """Import every module in a fresh interpreter; report the load set and time of the roots."""
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def one(name):
        r = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=root, env=env,
                           capture_output=True, text=True)
        return name, r.returncode, r.stderr.strip().splitlines()[-1:] if r.returncode else []
    names = sorted(mods)
    failed = 0
    with ThreadPoolExecutor(jobs) as pool:
        for name, rc, err in pool.map(one, names):
            if rc:
                failed += 1
                print(f"  FAIL {name}: {err[0] if err else rc}")
    print(f"imported {len(names) - failed}/{len(names)} modules, each in a fresh process")
    probe = ("import sys, time; t = time.perf_counter(); import {0}; t = time.perf_counter() - t; "
             "own = sorted(m for m in sys.modules if m.split('.')[0] == 'jitgraph'); "
             "heavy = [m for m in ('numba', 'llvmlite', 'cupy', 'scipy', 'dask', 'pydot') "
             "if m in sys.modules]; print(len(own), round(t, 3), heavy)")
    for r in ROOTS:
        times = []
        for _ in range(5):
            out = subprocess.run([sys.executable, "-c", probe.format(r)], cwd=root, env=env,
                                 capture_output=True, text=True).stdout.split(None, 2)
            times.append(float(out[1]))
        print(f"`import {r}`: {out[0]} jitgraph modules, best of 5 {min(times):.3f} s, "
              f"heavy externals loaded: {out[2].strip()}")
    return 1 if failed else 0


# ----------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=".", help="repository root (holds jitgraph/)")
    ap.add_argument("--check", action="store_true", help="report only, write nothing")
    ap.add_argument("--list", metavar="CATEGORY", action="append", default=[],
                    help="print the imports of a category (repeatable; 'all' for every one)")
    ap.add_argument("--summary", action="store_true",
                    help="count what stays inside functions by category and subpackage pair")
    ap.add_argument("--max-root-growth", type=int, default=0,
                    help="more jitgraph modules `import jitgraph(.tensor)` may load per hoist")
    ap.add_argument("--verify", action="store_true",
                    help="import every module in a fresh process and time the roots, then exit")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    root = os.path.abspath(a.root)
    if a.verify:
        return verify(root, discover(root), a.jobs)

    # Rounds until nothing more moves: a hoist can bind at module level a name another module
    # imports from it, so one more round may move that import too; re-running is then a no-op.
    originals = {m.path: m.text for m in discover(root).values()}
    texts, roots, first_roots, hoisted = dict(originals), None, None, []
    for _ in range(10):
        planner = Planner(root, a.max_root_growth, texts, roots)
        imports = planner.plan()
        first_roots = first_roots or planner.roots_before
        roots = planner.roots
        mods = planner.mods
        by_module = collections.defaultdict(list)
        for imp in imports:
            if imp.category == "hoisted":
                by_module[imp.module].append(imp)
        if not by_module:
            break
        for name, moved in by_module.items():
            m = mods[name]
            texts[m.path] = rewrite(m, sorted(moved, key=lambda i: i.node.lineno),
                                    planner.added[name], mods)
            compile(texts[m.path], m.path, "exec")  # never write a file that does not parse
            hoisted.extend(moved)
    imports = hoisted + [i for i in imports if i.category != "hoisted"]
    mods = discover(root, texts)
    planner.roots_before = first_roots

    counts = collections.Counter(i.category for i in imports)
    edges = collections.Counter()
    for imp in imports:
        edges[imp.category] += len(imp.targets)
    print(f"layers from {planner.layer_source}")
    print(f"{len(imports)} import statements of package modules inside functions "
          f"({sum(edges.values())} imported modules, as tools/layers.py counts them)")
    for c in CATEGORIES:
        print(f"  {c:20s} {counts[c]:5d} statements  {edges[c]:5d} imports")
    originals_by_name = {n: originals[m.path] for n, m in mods.items()}
    lazy0, kloc0, cyc0 = figures(originals_by_name, mods)
    lazy1, kloc1, cyc1 = figures({n: m.text for n, m in mods.items()}, mods)
    print(f"imports inside functions: {lazy0} ({lazy0 / kloc0:.1f} per 1,000 lines) -> "
          f"{lazy1} ({lazy1 / kloc1:.1f} per 1,000 lines)")
    print(f"largest cycle of modules (module-level imports): {cyc0} -> {cyc1} files")
    for r, before in planner.roots_before.items():
        after = planner.roots[r]
        print(f"`import {r}` loads {len(before)} -> {len(after)} package modules"
              + (f" (+{', '.join(sorted(after - before))})" if after - before else "")
              + f"; heavy externals: {sorted(planner.facts.heavy(after)) or 'none'}")
    if a.summary:
        pairs = collections.Counter()
        for imp in imports:
            if imp.category != "hoisted":
                for t in imp.targets:
                    pairs[imp.category, subpackage(imp.module), subpackage(t)] += 1
        print("left inside functions, by subpackage (imports as tools/layers.py counts them):")
        for (category, src, dst), n in sorted(pairs.items()):
            print(f"  {category:20s} {src} -> {dst}: {n}")
    wanted = set(CATEGORIES) if "all" in a.list else set(a.list)
    for imp in sorted(imports, key=lambda i: i.key):
        if imp.category in wanted:
            path = os.path.relpath(mods[imp.module].path, root)
            print(f"{imp.category}: {path}:{imp.node.lineno}: {imp.text}"
                  + (f"  [{imp.reason}]" if imp.reason else ""))
    if not a.check:
        changed = [p for p, t in texts.items() if t != originals[p]]
        for path in changed:
            with open(path, "w", encoding="utf-8") as f:
                f.write(texts[path])
        print(f"rewrote {len(changed)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
