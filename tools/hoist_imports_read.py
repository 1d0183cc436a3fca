"""Reading jitgraph for tools/hoist_imports.py: its modules, their imports (module-level and
inside functions), the facts the checks need (load graph, externals, values rebound at run
time, static exports) and the layer order."""
from __future__ import annotations

import ast
import collections
import dataclasses
import os
import subprocess
import sys
import symtable
import tomllib

PACKAGE = "jitgraph"

# High -> low (docs: issue 26, notes/COMMON.md). "a | b": independent siblings (they may not import
# each other); "a : b": siblings that may. Used when pyproject.toml has no import-linter contract.
# Top-level names in no layer (the Theano facade: __init__, scalar, typed_list, misc, gof, ...)
# form the top floor. The last layer holds leaf helpers that import nothing of the package.
DEFAULT_LAYERS = (
    "dask",
    "backend_cpu | backend_gpu",
    "gradient",
    "ifelse",
    "scan",
    "sparse",
    "compile",
    "random",
    "rewrite",
    "tensor",
    "scalar_expr",
    "graph",
    "cache",
    "config",
    "lazy_exports : unavailable : logging_setup : pathparse",
)

# Externals that any module may load eagerly; any other one (numba, llvmlite, cupy, scipy, dask,
# pydot, pytest...) must not become an eager import of a module that did not load it.
CHEAP_EXTERNALS = frozenset(sys.stdlib_module_names) | {"numpy", "filelock", "typing_extensions"}
# Modules whose load set no hoist may grow: the two roots, and what the first ``shared()`` loads
# (the kinds of shared value: random and sparse are imported only for such a value, ~45 ms).
ROOTS = (PACKAGE, PACKAGE + ".tensor", PACKAGE + ".shared_kinds")
OPTIONAL_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


# ----------------------------------------------------------------------------------------------
# Reading the package


@dataclasses.dataclass
class Binding:
    """One name an import statement binds: ``what`` identifies the object (two bindings with the
    same ``what`` mean the same thing), ``loads`` is the module the statement guarantees loaded."""
    name: str
    what: tuple
    loads: str


@dataclasses.dataclass
class LazyImport:
    """An import of package modules made inside a function."""
    module: str  # the importing module
    node: ast.stmt
    targets: list  # direct targets, counted as tools/layers.py counts them
    bindings: list
    scope: ast.AST  # innermost enclosing function (or class) node
    guarded: str = ""  # why it is for an optional thing ("" when it is not)
    category: str = ""
    reason: str = ""

    @property
    def key(self):
        return (self.module, self.node.lineno)


class Module:
    def __init__(self, name: str, path: str, is_pkg: bool, text: str | None = None):
        self.name, self.path, self.is_pkg = name, path, is_pkg
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self.text = text
        self.lines = self.text.splitlines(keepends=True)
        self.tree = ast.parse(self.text, path)
        self.table = symtable.symtable(self.text, path, "exec")
        self.parents = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node


def discover(root: str, texts: dict[str, str] | None = None) -> dict[str, Module]:
    """The package's modules by name; ``texts`` (path -> source) overrides what is on disk."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, PACKAGE)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                is_pkg = name.endswith(".__init__")
                name = name[:-9] if is_pkg else name
                out[name] = Module(name, path, is_pkg, (texts or {}).get(path))
    return out


def resolve_from(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module name of a ``from ... import`` statement."""
    if not node.level:
        return node.module or ""
    base = module.name.split(".")[:None if module.is_pkg else -1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def owning_module(name: str, mods) -> str:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name


def direct_targets(module: Module, node, mods) -> list[str]:
    """The package modules an import statement names, as tools/layers.py counts them."""
    if isinstance(node, ast.ImportFrom):
        base = resolve_from(module, node)
        names = [base + "." + a.name if base + "." + a.name in mods else base for a in node.names]
    else:
        names = [a.name for a in node.names]
    out = [owning_module(n, mods) for n in names]
    return [t for t in out if t and t != module.name]


def externals(module: Module, node) -> set[str]:
    """Top-level names of the non-package modules an import statement loads."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return set()
        names = [node.module or ""]
    else:
        names = [a.name for a in node.names]
    return {n.partition(".")[0] for n in names if n.partition(".")[0] not in ("", PACKAGE)}


def ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def loaded_by(module: Module, node, mods) -> set[str]:
    """Package modules whose code runs when ``module`` executes the import statement ``node``
    (its targets and their parent packages, less ``module``'s own parents, already initialised)."""
    own = set(ancestors(module.name)) | {module.name}
    direct = set(direct_targets(module, node, mods))
    implicit = set()
    if isinstance(node, ast.ImportFrom):
        base = owning_module(resolve_from(module, node), mods)
        if base:
            implicit.add(base)
            implicit.update(ancestors(base))
    for t in direct:
        implicit.update(ancestors(t))
    return direct | (implicit - own)


def bindings_of(module: Module, node, mods) -> list[Binding]:
    out = []
    if isinstance(node, ast.ImportFrom):
        base = resolve_from(module, node)
        for a in node.names:
            if a.name == "*":
                return []
            full = base + "." + a.name
            what = ("module", full) if full in mods else ("attr", base, a.name)
            out.append(Binding(a.asname or a.name, what, full if full in mods else base))
    else:
        for a in node.names:
            if a.asname:
                out.append(Binding(a.asname, ("module", a.name), a.name))
            else:
                top = a.name.partition(".")[0]
                out.append(Binding(top, ("module", top), a.name))
    return out


def is_type_checking(node) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def catches_import_errors(node: ast.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(ast.unparse(t).rpartition(".")[2] in OPTIONAL_ERRORS for t in types):
            return True
    return False


FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
SCOPE_NODES = FUNCTION_NODES + (ast.ClassDef,)


def walk_imports(module: Module, mods):
    """(module-level import statements, lazy imports) of a module, as tools/layers.py sees them:
    ``if TYPE_CHECKING`` blocks are left out, imports in functions are lazy."""
    top, lazy = [], []

    def walk(node, scope, in_function, guard):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                if not in_function:
                    top.append(child)
                elif direct_targets(module, child, mods):
                    lazy.append(LazyImport(module.name, child, direct_targets(module, child, mods),
                                           bindings_of(module, child, mods), scope, guard))
            elif isinstance(child, FUNCTION_NODES):
                walk(child, child, True, "")
            elif isinstance(child, ast.ClassDef):
                walk(child, child if in_function else scope, in_function, guard)
            elif is_type_checking(child):
                continue
            elif isinstance(child, ast.Try) and in_function and catches_import_errors(child):
                for part in child.body:
                    walk_one(part, scope, guard or "in a try that catches ImportError")
                for rest in child.handlers + child.orelse + child.finalbody:
                    walk_one(rest, scope, guard)
            else:
                walk(child, scope, in_function, guard)

    def walk_one(node, scope, guard):
        holder = ast.Module(body=[node], type_ignores=[])
        walk(holder, scope, True, guard)

    walk(module.tree, None, False, "")
    return top, lazy


# ----------------------------------------------------------------------------------------------
# Module facts used by the checks


def static_names(module: Module) -> set[str]:
    """Names bound at module level (``def``, ``class``, assignment, import)."""
    return {s.get_name() for s in module.table.get_symbols()
            if s.is_assigned() or s.is_imported() or s.is_namespace()}


def static_all(module: Module):
    for node in module.tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                return None
    return None


def measured_load(root: str, name: str, mods) -> set[str]:
    """The package modules ``import name`` loads today, dynamic imports included (run in a fresh
    interpreter); empty when that fails."""
    code = f"import sys; import {name}; print(' '.join(sys.modules))"
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True,
                       text=True)
    if r.returncode:
        print(f"warning: `import {name}` failed; its load set is read from the code only")
        return set()
    return set(r.stdout.split()) & set(mods)


class Facts:
    """What the checks need to know about the whole package (and its tests)."""

    def __init__(self, root: str, mods: dict[str, Module]):
        self.mods = mods
        self.top_imports, self.lazy = {}, []
        for name, m in mods.items():
            top, lazy = walk_imports(m, mods)
            self.top_imports[name] = top
            self.lazy.extend(lazy)
        self.edges = {n: set() for n in mods}  # module-level "runs the code of" graph
        self.ext = {n: set() for n in mods}  # externals each module loads at module level
        for name, m in mods.items():
            for node in self.top_imports[name]:
                self.edges[name] |= loaded_by(m, node, mods)
                self.ext[name] |= externals(m, node)
        self._exports = {}
        self.star_imported = set()
        self.rebound = set()  # (module or None, name): values rebound at run time
        for name, m in mods.items():
            self._scan_rebinding(m.tree, name, m)
            for node in ast.walk(m.tree):
                if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                    self.star_imported.add(owning_module(resolve_from(m, node), mods))
        tests = os.path.join(root, "tests")
        for dirpath, dirnames, filenames in os.walk(tests):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for f in filenames:
                if f.endswith(".py"):
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        try:
                            tree = ast.parse(fh.read())
                        except SyntaxError:
                            continue
                    self._scan_rebinding(tree, None, None)
                    for node in ast.walk(tree):
                        if isinstance(node, ast.ImportFrom) and node.module and any(
                                a.name == "*" for a in node.names):
                            self.star_imported.add(owning_module(node.module, mods))

    def _scan_rebinding(self, tree, modname, module):
        """Record (module, name) pairs whose value changes at run time: ``global name`` in the
        module, ``setattr(mod, "name", ...)`` / ``monkeypatch.setattr(mod, "name", ...)`` /
        ``monkeypatch.setattr("pkg.mod.name", ...)`` and ``mod.name = ...`` anywhere."""
        aliases = collections.defaultdict(set)  # local name -> package modules it may be
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        aliases[a.asname].add(a.name)
                    else:
                        aliases[a.name.partition(".")[0]].add(a.name.partition(".")[0])
            elif isinstance(node, ast.ImportFrom):
                base = resolve_from(module, node) if module is not None else node.module or ""
                for a in node.names:
                    if base + "." + a.name in self.mods:
                        aliases[a.asname or a.name].add(base + "." + a.name)

        def modules_of(expr):
            """The package modules an expression (``alias`` or ``alias.sub.mod``) may be."""
            if isinstance(expr, ast.Name):
                return {m for m in aliases.get(expr.id, ()) if m in self.mods}
            if isinstance(expr, ast.Attribute):
                return {f"{m}.{expr.attr}" for m in modules_of(expr.value)
                        if f"{m}.{expr.attr}" in self.mods}
            return set()

        for node in ast.walk(tree):
            if isinstance(node, ast.Global) and modname:
                self.rebound |= {(modname, n) for n in node.names}
            elif (isinstance(node, ast.Call) and node.args
                    and ast.unparse(node.func).rpartition(".")[2] == "setattr"):
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    owner, _, attr = first.value.rpartition(".")
                    self.rebound.add((owner, attr))
                elif len(node.args) >= 2:
                    name = node.args[1]
                    attr = name.value if isinstance(name, ast.Constant) else None
                    for m in modules_of(first):
                        self.rebound.add((m, attr))  # attr None: any name of that module
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [
                    node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Attribute):
                            for m in modules_of(sub.value):
                                self.rebound.add((m, sub.attr))

    def exports(self, name: str, seen=()) -> set[str]:
        """Names module ``name`` binds statically, following its star imports."""
        if name in self._exports:
            return self._exports[name]
        m = self.mods[name]
        out = static_names(m)
        for node in ast.walk(m.tree):
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                src = owning_module(resolve_from(m, node), self.mods)
                if src and src not in seen and src != name:
                    listed = static_all(self.mods[src])
                    names = self.exports(src, seen + (name,))
                    out |= (names & listed) if listed is not None else {
                        n for n in names if not n.startswith("_")}
        if m.is_pkg:
            out |= {n.rpartition(".")[2] for n in self.mods if n.rpartition(".")[0] == name}
        self._exports[name] = out
        return out

    def closure(self, start, extra=None):
        """Package modules importing ``start`` runs (with its parents), given ``extra`` edges."""
        todo = [start, *ancestors(start)] if isinstance(start, str) else list(start)
        seen = set(todo)
        while todo:
            n = todo.pop()
            for t in self.edges.get(n, ()) | (extra.get(n, set()) if extra else set()):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return seen

    def heavy(self, loaded) -> set[str]:
        return {e for n in loaded for e in self.ext.get(n, ())} - CHEAP_EXTERNALS

    def reaches(self, src: str, dst: str) -> bool:
        todo, seen = [src], {src}
        while todo:
            n = todo.pop()
            if n == dst:
                return True
            for t in self.edges.get(n, ()):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return False


# ----------------------------------------------------------------------------------------------
# Layers


def read_layers(root: str):
    """(layer index of each listed top-level name, pairs of independent siblings, source)."""
    layers, independent, source = None, set(), "DEFAULT_LAYERS in tools/hoist_imports_read.py"
    path = os.path.join(root, "pyproject.toml")
    contracts = []
    if os.path.exists(path):
        with open(path, "rb") as f:
            contracts = tomllib.load(f).get("tool", {}).get("importlinter", {}).get(
                "contracts", [])

    def top_name(entry, containers):
        entry = entry.strip().strip("()").strip()
        for c in containers:
            if c == PACKAGE:
                entry = PACKAGE + "." + entry
        parts = entry.split(".")
        return parts[1] if parts[0] == PACKAGE and len(parts) == 2 else None

    for c in contracts:
        containers = c.get("containers", [])
        if isinstance(containers, str):
            containers = [containers]
        if c.get("type") == "layers" and layers is None:
            parsed = []
            for entry in c.get("layers", []):
                sep = "|" if "|" in entry else ":"
                names = [top_name(e, containers) for e in entry.split(sep)]
                if None in names:
                    break
                parsed.append((sep, names))
            else:
                if parsed:
                    layers = parsed
                    source = f"import-linter contract {c.get('name', '?')!r} in pyproject.toml"
        elif c.get("type") == "independence":
            names = [top_name(e, containers) for e in c.get("modules", [])]
            names = [n for n in names if n]
            independent |= {(a, b) for a in names for b in names if a != b}
    if layers is None:
        layers = []
        for entry in DEFAULT_LAYERS:
            sep = "|" if "|" in entry else ":"
            layers.append((sep, [e.strip() for e in entry.split(sep)]))
    index = {}
    for i, (sep, names) in enumerate(reversed(layers)):
        for n in names:
            index[n] = i
        if sep == "|":
            independent |= {(a, b) for a in names for b in names if a != b}
    return index, independent, source


def subpackage(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"
