"""The source edits of tools/hoist_imports.py, made line by line from ast positions: an import
leaves its function and joins the imports at the top of its module."""
from __future__ import annotations

import ast
import collections
import re

from hoist_imports_read import (SCOPE_NODES, LazyImport, Module, direct_targets,
                                is_type_checking, resolve_from)

LINE_LENGTH = 100


def render_from(module_text: str, names: list[str], indent: str = "") -> str:
    """``from module import names`` within LINE_LENGTH, continued in parentheses aligned after
    the opening one (the project's style)."""
    head = f"{indent}from {module_text} import "
    one = head + ", ".join(names)
    if len(one) <= LINE_LENGTH:
        return one + "\n"
    lines, current = [], head + "("
    pad = " " * len(current)
    for i, n in enumerate(names):
        piece = n + (")" if i == len(names) - 1 else ",")
        candidate = current + ("" if current.endswith("(") else " ") + piece
        if len(candidate) > LINE_LENGTH and not current.endswith("("):
            lines.append(current + "\n")
            current = pad + piece
        else:
            current = candidate
    return "".join(lines) + current + "\n"


def alias_text(a: ast.alias) -> str:
    return a.name + (f" as {a.asname}" if a.asname else "")


def module_text(node: ast.ImportFrom) -> str:
    return "." * node.level + (node.module or "")


def header(m: Module, mods):
    """The imports at the top of the module: (line index after them, whether there are any,
    mergeable ``from`` statements by module, the package's own import statements)."""
    body = m.tree.body
    i = 0
    after = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        after = body[0].end_lineno
        i = 1
    last_import = None
    mergeable, own = {}, []
    for node in body[i:]:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            last_import = node
            if direct_targets(m, node, mods) or (
                    isinstance(node, ast.ImportFrom) and node.level):
                own.append(node)
            if isinstance(node, ast.ImportFrom) and node.module != "__future__" and all(
                    a.name != "*" for a in node.names):
                text = "".join(m.lines[node.lineno - 1:node.end_lineno])
                if "#" not in text:
                    mergeable.setdefault(resolve_from(m, node), node)
        elif is_type_checking(node) or (isinstance(node, ast.Try) and all(
                isinstance(s, (ast.Import, ast.ImportFrom)) for s in node.body)):
            last_import = node
        else:
            break
    if last_import is not None:
        return last_import.end_lineno, True, mergeable, own
    return after, False, mergeable, own


def sort_key(node) -> str:
    if isinstance(node, ast.ImportFrom):
        return module_text(node)
    return node.names[0].name


BLOCK_OPENER = re.compile(r":\s*(#.*)?$")


def rewrite(m: Module, removed: list[LazyImport], added: list[LazyImport], mods) -> str:
    lines = list(m.lines)
    gone = set()  # line indices deleted
    put = collections.defaultdict(list)  # line index -> lines inserted before it
    removed_nodes = {id(i.node) for i in removed}
    emptied = set()
    for imp in removed:
        node = imp.node
        parent = m.parents[node]
        block = next(getattr(parent, f) for f in ("body", "orelse", "finalbody", "handlers")
                     if node in getattr(parent, f, []))
        gone.update(range(node.lineno - 1, node.end_lineno))
        if all(id(s) in removed_nodes for s in block) and id(block) not in emptied:
            emptied.add(id(block))
            put[node.lineno - 1].append(" " * node.col_offset + "pass\n")
    # a blank line left right after a block opener, a docstring or another blank line goes too
    docstring_ends = {n.body[0].end_lineno - 1 for n in ast.walk(m.tree)
                      if isinstance(n, SCOPE_NODES[:2] + (ast.ClassDef,)) and n.body
                      and isinstance(n.body[0], ast.Expr)
                      and isinstance(n.body[0].value, ast.Constant)
                      and isinstance(n.body[0].value.value, str)}
    for i in sorted(gone):
        if i + 1 in gone or i + 1 >= len(lines) or lines[i + 1].strip() or i in put:
            continue
        start = i
        while start - 1 in gone:
            start -= 1
        if start in put:
            continue
        prev = lines[start - 1] if start else ""
        if not prev.strip() or BLOCK_OPENER.search(prev.rstrip()) or start - 1 in docstring_ends:
            gone.add(i + 1)

    # module-level additions (the planner left out what the module already imports)
    end, has_imports, mergeable, own = header(m, mods)
    new_from = collections.OrderedDict()
    new_plain = []
    for imp in added:
        node = imp.node
        if isinstance(node, ast.ImportFrom):
            mod = resolve_from(m, node)
            text = module_text(node)
            if mod in mergeable:
                text = module_text(mergeable[mod])
            names = new_from.setdefault(mod, (text, []))[1]
            names.extend(alias_text(a) for a in imp.new_aliases if alias_text(a) not in names)
        else:
            new_plain.extend(f"import {alias_text(a)}" for a in imp.new_aliases)
    statements = []  # (sort key, text) of new statements
    replaced = {}
    for mod, (text, names) in new_from.items():
        target = mergeable.get(mod)
        if target is not None:
            old = [alias_text(a) for a in target.names]
            merged = old + [n for n in names if n not in old]
            if old == sorted(old):
                merged = sorted(merged)
            replaced[target.lineno - 1] = (target.end_lineno, render_from(text, merged))
        else:
            statements.append((text, render_from(text, sorted(names))))
    statements += [(t[7:], t + "\n") for t in sorted(set(new_plain))]
    keys = [sort_key(n) for n in own]
    in_order = keys == sorted(keys)
    for key, text in sorted(statements):
        if own and in_order and any(k > key for k in keys):
            before = next(n for n in own if sort_key(n) > key)
            put[before.lineno - 1].append(text)
        elif own:
            put[own[-1].end_lineno].append(text)
        elif has_imports:  # a new group of the package's imports, after the others
            put[end].append(("\n" if not put[end] else "") + text)
        else:  # no imports yet: after the docstring (or at the top), set off by blank lines
            put[end].append(("\n" if end and not put[end] else "") + text)
    if not has_imports and put.get(end) and end < len(lines) and lines[end].strip():
        put[end].append("\n")

    out = []
    skip_until = -1
    for i, line in enumerate(lines + [""]):
        out.extend(put.get(i, ()))
        if i in replaced:
            stop, text = replaced[i]
            out.append(text)
            skip_until = stop
        if i < skip_until or i in gone or i == len(lines):
            continue
        out.append(line)
    return "".join(out)
