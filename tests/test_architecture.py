"""The architecture, checked from the code (docs/architecture.md explains it).

* the import-linter contracts of pyproject.toml: subpackages follow the compile pipeline (a
  module imports only from its own layer or lower ones, at module level or inside a function)
  and the two backends are independent;
* no import cycle through module-level imports, between subpackages or between modules;
* imports of jitgraph's own modules made inside functions stay rare (they are for optional
  dependencies, import speed and run-time registration, never to dodge a cycle): at most
  ``MAX_LAZY_PER_KLOC`` per 1,000 lines (``tools/hoist_imports.py`` moves the others to module
  level and says why each one left is needed);
* no module over ``MAX_LINES`` lines, except the ones listed (data tables, or files not split
  yet: the list may only shrink, and a listed file that fits fails the test until it is removed).
"""

from __future__ import annotations

import ast
import collections
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "jitgraph"
MAX_LINES = 600
MAX_LAZY_PER_KLOC = 3.0
#: files allowed over MAX_LINES (path relative to the package -> why)
LONG_FILES: dict[str, str] = {
}


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}


def _targets(module: str, is_package: bool, node: ast.AST, known: set[str]) -> list[str]:
    """The jitgraph modules an import statement names (the deepest known module of each)."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".")[:None if is_package else -1]
            base = base[:len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        names = [f"{source}.{a.name}" if f"{source}.{a.name}" in known else source
                 for a in node.names]
    else:
        names = [a.name for a in node.names]
    found = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.append(name)
    return found


def _imports() -> tuple[list[tuple[str, str, bool]], int]:
    """(importer, imported, inside a function) for every import of a jitgraph module, and the
    package's line count."""
    modules = _modules()
    known = set(modules)
    edges: list[tuple[str, str, bool]] = []
    lines = 0

    for module, path in modules.items():
        source = path.read_text()
        lines += source.count("\n")
        is_package = path.name == "__init__.py"

        def walk(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    edges.extend((module, target, in_function)
                                 for target in _targets(module, is_package, child, known))
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    walk(child, True)
                elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                else:
                    walk(child, in_function)

        walk(ast.parse(source), False)
    return edges, lines


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in list(graph):
        if root in index:
            continue
        work = [(root, iter(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, ()))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _subpackage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_import_linter_contracts_hold() -> None:
    pytest.importorskip("importlinter", reason="the test extra installs import-linter")
    # In a child process: import-linter configures logging, which would silence the loggers
    # of the tests that run after this one.
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}, "
            "no_cache=True, no_logo=True))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def _module_level_graphs() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Module-level imports: between modules, and between subpackages."""
    edges, _ = _imports()
    modules: dict[str, set[str]] = collections.defaultdict(set)
    packages: dict[str, set[str]] = collections.defaultdict(set)
    for importer, imported, in_function in edges:
        if in_function:
            continue
        modules[importer].add(imported)
        if _subpackage(importer) != _subpackage(imported):
            packages[_subpackage(importer)].add(_subpackage(imported))
    return modules, packages


def test_no_module_imports_itself_through_module_level_imports() -> None:
    modules, _ = _module_level_graphs()
    assert _cycles(modules) == [], "modules importing each other at module level"


def test_no_subpackages_import_each_other_at_module_level() -> None:
    _, packages = _module_level_graphs()
    assert _cycles(packages) == [], "subpackages importing each other at module level"


def test_imports_inside_functions_stay_rare() -> None:
    edges, lines = _imports()
    inside = sum(1 for _, _, in_function in edges if in_function)
    per_kloc = 1000 * inside / lines
    assert per_kloc <= MAX_LAZY_PER_KLOC, (
        f"{inside} imports of jitgraph modules inside functions ({per_kloc:.1f} per 1,000 lines, "
        f"ceiling {MAX_LAZY_PER_KLOC}): import at module level, or invert the dependency "
        "(jitgraph.services, a registry) when the import would point up a layer")


def test_modules_stay_short() -> None:
    long = {str(path.relative_to(PACKAGE)): path.read_text().count("\n")
            for path in PACKAGE.rglob("*.py")}
    long = {name: n for name, n in long.items() if n > MAX_LINES}
    unexpected = sorted(set(long) - set(LONG_FILES))
    assert not unexpected, f"over {MAX_LINES} lines: {[(n, long[n]) for n in unexpected]}"
    fixed = sorted(set(LONG_FILES) - set(long))
    assert not fixed, f"{fixed} fit in {MAX_LINES} lines now: take them off LONG_FILES"
