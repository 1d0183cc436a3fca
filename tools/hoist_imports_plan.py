"""The decisions of tools/hoist_imports.py: which imports inside functions may move to module
level, checked one by one against the graph as it grows."""
from __future__ import annotations

import ast
import builtins
import collections
import sys

from hoist_imports_read import (ROOTS, SCOPE_NODES, Binding, Facts, LazyImport, Module,
                                bindings_of, discover, loaded_by, measured_load,
                                owning_module, read_layers, static_all, static_names,
                                subpackage)


class Planner:
    def __init__(self, root: str, max_root_growth: int, texts=None, roots=None):
        self.root = root
        self.mods = discover(root, texts)
        self.facts = Facts(root, self.mods)
        self.layer, self.independent, self.layer_source = read_layers(root)
        self.top_floor = max(self.layer.values(), default=0) + 1
        self.max_root_growth = max_root_growth
        self.module_bindings = {n: self._module_bindings(m) for n, m in self.mods.items()}
        self.added = collections.defaultdict(list)  # module -> [(node, bindings)] hoisted here
        self.roots_before = roots or {r: self.facts.closure(r) | measured_load(
            root, r, self.mods) for r in ROOTS if r in self.mods}
        self.roots = {r: set(v) for r, v in self.roots_before.items()}

    # -- layers
    def layer_of(self, name):
        return self.layer.get(subpackage(name), self.top_floor)

    def upward(self, imp: LazyImport) -> str:
        src = subpackage(imp.module)
        for t in imp.targets:
            dst = subpackage(t)
            if dst == src:
                continue
            if self.layer_of(t) > self.layer_of(imp.module):
                return f"{src} -> {dst}"
            if (src, dst) in self.independent:
                return f"{src} -> {dst} (independent)"
        return ""

    # -- names
    def _module_bindings(self, m: Module):
        """name -> list of Binding for module-level imports; other module-level names -> None."""
        out = collections.defaultdict(list)
        for node in self.facts.top_imports[m.name]:
            if m.parents.get(node) is m.tree:
                for b in bindings_of(m, node, self.mods):
                    out[b.name].append(b)
        for s in m.table.get_symbols():
            name = s.get_name()
            if (s.is_assigned() or s.is_namespace() or s.is_parameter()) or (
                    s.is_imported() and name not in out):
                out[name] = None  # bound some other way (or imported under an `if`/`try`)
        return out

    def _scope_tables(self, m: Module):
        if not hasattr(m, "scopes"):
            m.scopes = {}

            def visit(t):
                m.scopes.setdefault((t.get_type(), t.get_name(), t.get_lineno()), []).append(t)
                for c in t.get_children():
                    visit(c)
            visit(m.table)
        return m.scopes

    def table_for(self, m: Module, node):
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        name = "lambda" if isinstance(node, ast.Lambda) else node.name
        found = self._scope_tables(m).get((kind, name, node.lineno), [])
        return found[0] if len(found) == 1 else None

    def imports_in_scope(self, m: Module, scope_node):
        out = []
        for node in ast.walk(scope_node):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                owner = m.parents.get(node)
                while owner is not None and not isinstance(owner, SCOPE_NODES):
                    owner = m.parents.get(owner)
                if owner is scope_node:
                    out.append(node)
        return out

    def clash(self, imp: LazyImport) -> str:
        m = self.mods[imp.module]
        table = self.table_for(m, imp.scope)
        if table is None:
            return "its function's symbol table is ambiguous"
        own_all = static_all(m)
        for b in imp.bindings:
            if b.name in dir(builtins):
                return f"{b.name!r} is a builtin"
            if m.is_pkg and f"{m.name}.{b.name}" in self.mods:
                return f"{b.name!r} is a submodule of the package"
            sym = table.lookup(b.name)
            if sym.is_assigned() or sym.is_parameter() or sym.is_declared_global() or getattr(
                    sym, "is_nonlocal", lambda: False)():
                return f"{b.name!r} is also assigned in the function"
            same = [bb for node in self.imports_in_scope(m, imp.scope)
                    for bb in bindings_of(m, node, self.mods) if bb.name == b.name]
            if any(bb.what != b.what for bb in same):
                return f"{b.name!r} is imported from elsewhere too in the function"
            existing = self.module_bindings[m.name].get(b.name)
            if existing is None and b.name in self.module_bindings[m.name]:
                return f"{b.name!r} is bound otherwise at module level"
            if existing and any(e.what != b.what for e in existing):
                return f"{b.name!r} is imported from elsewhere at module level"
            if existing:
                continue  # the module-level name means the same object already
            if self._getattr_serves(m, b.name):
                return f"{b.name!r} is served by the module's __getattr__"
            if (m.name in self.facts.star_imported and own_all is None
                    and not b.name.startswith("_")):
                return f"{b.name!r} would be exported by `from {m.name} import *`"
            other = self._other_use(m, table, b)
            if other:
                return other
        return ""

    def side_effect(self, imp: LazyImport) -> str:
        m = self.mods[imp.module]
        table = self.table_for(m, imp.scope)
        if table is None:
            return ""  # the clash check skips it
        if all(not table.lookup(b.name).is_referenced()
               and not self._read_by_nested(table, b.name) for b in imp.bindings):
            return "no name it binds is read: imported for its side effect"
        return ""

    def _read_by_nested(self, table, name) -> bool:
        """Whether a function nested in ``table`` reads ``name`` from it (a free variable)."""
        for child in table.get_children():
            if name in child.get_identifiers():
                s = child.lookup(name)
                if s.is_free():
                    return True
                if s.is_local():
                    continue  # shadowed there, and below
            if self._read_by_nested(child, name):
                return True
        return False

    def _getattr_serves(self, m: Module, name: str) -> bool:
        if "__getattr__" not in static_names(m):
            return False
        return any(isinstance(n, ast.Constant) and n.value == name for n in ast.walk(m.tree))

    def _other_use(self, m: Module, own_table, b: Binding) -> str:
        def visit(t, where):
            if t is own_table or b.name not in t.get_identifiers():
                return ""
            s = t.lookup(b.name)
            if t.get_type() == "module":
                if s.is_referenced():
                    return f"{b.name!r} is read at module level before any binding"
            elif t.get_type() == "class":
                if not s.is_local() and s.is_referenced():
                    return f"{b.name!r} is read as a global in class {t.get_name()}"
            elif s.is_declared_global():
                return f"{b.name!r} is declared global in {t.get_name()}"
            elif s.is_local():
                if s.is_assigned() or s.is_parameter() or not s.is_imported():
                    return f"{b.name!r} is a different local in {t.get_name()}"
                node = self._node_for(m, t)
                if node is None:
                    return f"{b.name!r} is imported in {t.get_name()} (scope not found)"
                for n in self.imports_in_scope(m, node):
                    for bb in bindings_of(m, n, self.mods):
                        if bb.name == b.name and bb.what != b.what:
                            return f"{b.name!r} is imported from elsewhere in {t.get_name()}"
            elif s.is_global() and s.is_referenced():
                return f"{b.name!r} is read as a global in {t.get_name()}"
            return ""

        todo = [m.table]
        while todo:
            t = todo.pop()
            why = visit(t, t.get_name())
            if why:
                return why
            todo.extend(t.get_children())
        return ""

    def _node_for(self, m: Module, table):
        for node in ast.walk(m.tree):
            if isinstance(node, SCOPE_NODES) and self.table_for(m, node) is table:
                return node
        return None

    def dynamic(self, imp: LazyImport) -> str:
        for b in imp.bindings:
            if b.what[0] == "attr":
                _, base, attr = b.what
                owner = owning_module(base, self.mods)
                if owner != base:
                    return f"{base} is not a module of the package"
                if attr not in self.facts.exports(base):
                    return f"{base}.{attr} is not bound statically (module __getattr__)"
        return ""

    def mutable(self, imp: LazyImport) -> str:
        for b in imp.bindings:
            if b.what[0] == "attr":
                _, base, attr = b.what
                if (base, attr) in self.facts.rebound or (base, None) in self.facts.rebound:
                    return f"{base}.{attr} is rebound at run time"
        return ""

    def layout(self, imp: LazyImport) -> str:
        m, node = self.mods[imp.module], imp.node
        if isinstance(imp.scope, ast.ClassDef):
            return "in a class body"
        first, last = m.lines[node.lineno - 1], m.lines[node.end_lineno - 1]
        if first[:node.col_offset].strip():
            return "shares its first line"
        rest = last[node.end_col_offset:].strip()
        if rest and not rest.startswith("#"):
            return "shares its last line"
        return ""

    # -- graph
    def new_edges(self, imp: LazyImport) -> set[str]:
        return loaded_by(self.mods[imp.module], imp.node, self.mods) - self.facts.edges[imp.module]

    def cycle(self, imp: LazyImport) -> str:
        for t in sorted(self.new_edges(imp)):
            if t == imp.module or self.facts.reaches(t, imp.module):
                return f"{t} already imports {imp.module}"
        return ""

    def heavy(self, imp: LazyImport) -> str:
        new = self.new_edges(imp)
        if not new:
            return ""
        before = self.facts.closure(imp.module)
        after = self.facts.closure([*before, *new])
        gained = self.facts.heavy(after) - self.facts.heavy(before)
        if gained:
            return f"{imp.module} would load {', '.join(sorted(gained))}"
        for r, loaded in self.roots.items():
            if imp.module in loaded:
                grown = self.facts.closure([*loaded, *new]) - loaded
                if len(grown) > self.max_root_growth:
                    return f"`import {r}` would load {len(grown)} more modules"
        return ""

    def raises(self, imp: LazyImport) -> str:
        """A target whose module body raises (a removed Theano path) is only imported on use."""
        for t in imp.targets:
            for node in self.mods[t].tree.body:
                if any(isinstance(n, ast.Raise) for n in ast.walk(node)
                       if not isinstance(node, SCOPE_NODES)):
                    return f"{t} raises when imported"
        return ""

    def decide(self, imp: LazyImport):
        checks = (("skipped-optional", lambda i: i.guarded or self.raises(i)),
                  ("skipped-layout", self.layout),
                  ("skipped-upward", self.upward),
                  ("skipped-dynamic", self.dynamic),
                  ("skipped-mutable", self.mutable),
                  ("skipped-side-effect", self.side_effect),
                  ("skipped-clash", self.clash),
                  ("skipped-cycle", self.cycle),
                  ("skipped-heavy", self.heavy))
        for category, check in checks:
            why = check(imp)
            if why:
                return category, why
        return "hoisted", ""

    def heights(self):
        memo = {}

        def height(n, stack=()):
            if n not in memo:
                memo[n] = 0
                memo[n] = 1 + max((height(t) for t in self.facts.edges[n]), default=-1)
            return memo[n]
        sys.setrecursionlimit(100000)
        return {n: height(n) for n in self.mods}

    def plan(self):
        height = self.heights()

        def priority(imp):
            down = self.layer_of(imp.module) - max(self.layer_of(t) for t in imp.targets)
            rise = height[imp.module] - max(height[t] for t in imp.targets)
            return (-down, -rise, imp.module, imp.node.lineno)
        for imp in sorted(self.facts.lazy, key=priority):
            m = self.mods[imp.module]
            imp.text = " ".join("".join(m.lines[imp.node.lineno - 1:imp.node.end_lineno]).split())
            imp.category, imp.reason = self.decide(imp)
            if imp.category == "hoisted":
                new = self.new_edges(imp)
                self.facts.edges[imp.module] |= new
                for loaded in self.roots.values():
                    if imp.module in loaded:
                        loaded |= self.facts.closure([*loaded, *new])
                mb = self.module_bindings[imp.module]
                imp.new_aliases = []  # what the module-level imports do not hold yet
                for alias, b in zip(imp.node.names, imp.bindings):
                    have = mb.get(b.name) or []
                    if not any(e.what == b.what and e.loads == b.loads for e in have):
                        imp.new_aliases.append(alias)
                        mb[b.name] = have + [b]
                if imp.new_aliases:
                    self.added[imp.module].append(imp)
        return self.facts.lazy
