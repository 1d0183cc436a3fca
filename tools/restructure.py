"""Move jitgraph's flat ``tensor/`` and ``backend_cpu/`` modules into subpackages (issue 26) and
update every reference to them.

    python tools/restructure.py            # dry run: what would move, what is missing
    python tools/restructure.py --apply    # git mv the files and rewrite the references

Re-runnable: a table entry whose source file does not exist is reported (``missing``, or
``done`` when its target already exists) and skipped, never an error, so the script can run
again after other branches have moved or changed files.

What it does, in order:

1. ``git mv`` each ``old module -> new module`` of :data:`MOVES` (creating the subpackages'
   ``__init__.py`` from :data:`PACKAGES`).
2. Rewrites references in ``jitgraph/``, ``tests/``, ``bench/``, ``examples/``, ``docs/`` and the
   top-level Markdown files: dotted module paths anywhere in the text (imports, ``from x
   import y``, ``mock.patch("jitgraph...")`` targets, ``sys.modules.get("...")``,
   ``"module:function"`` strings, docs), file paths (``jitgraph/tensor/basic.py``,
   ``backend_cpu/kernels.py``) and ``from package import module`` statements (which a dotted
   rewrite cannot see). The tests of Theano's import paths are left alone: they must keep
   importing the old public paths.
3. Writes :data:`COMPAT_MODULE` (``jitgraph/_facade/moved.py``): the table old path -> new
   path, which the facade's finder serves (each old path is the new module object), so that
   pickles naming an old module (a user's pickled function) and Theano's public paths still
   import. The Theano public ones among them are printed, and written to
   ``tools/restructure_facade_rows.json``.
4. Writes ``backend_cpu/native/__init__.py``: the names code outside ``native/`` uses from the
   toolchain, re-exported, so that ``from jitgraph.backend_cpu import native`` is the boundary.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: folders and files whose references are rewritten
SCAN = ("jitgraph", "tests", "bench", "examples", "docs", "README.md", "DESIGN.md",
        "CHANGELOG.md", "pyproject.toml", "setup.cfg", ".importlinter")
#: text files rewritten (by suffix)
SUFFIXES = (".py", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".json", ".importlinter")
#: files never rewritten: these tests check that Theano's old import paths keep working
KEEP = {"tests/test_module_paths.py", "tests/test_namespaces.py",
        "tests/test_namespaces_submodules.py", "tests/test_old_gpu_paths.py",
        "tools/restructure.py", "jitgraph/_facade/moved.py"}
COMPAT_MODULE = "jitgraph/_facade/moved.py"
FACADE_ROWS = "tools/restructure_facade_rows.json"
THEANO_MODULES = "tests/data/theano_modules.json"

# ---------------------------------------------------------------------------------------------
# The layout: package -> docstring, and old module -> new module

PACKAGES: dict[str, str] = {
    "jitgraph.tensor.core": "Tensor types and variables, dtypes, conversion and constructors, the "
                            "basic construction ops, differentiation (``grad``, ``verify_grad``) "
                            "and the op classes Theano exposed in ``theano.tensor``.",
    "jitgraph.tensor.elementwise": "Elementwise computation: the scalar-op table, ``Elemwise`` "
                                   "and ``Composite``, the math functions built on them, and the "
                                   "reductions and statistics.",
    "jitgraph.tensor.indexing": "Indexing: basic and advanced ``x[...]``, boolean masks, "
                                "``set_subtensor``/``inc_subtensor``, the index encoding, "
                                "nonzero, ravel/unravel, take and permutations.",
    "jitgraph.tensor.shaping": "Shapes: the shape ops, reshape and broadcast patterns, dims "
                               "arithmetic, joining and splitting, diagonals and special "
                               "matrices.",
    "jitgraph.tensor.linalg": "Linear algebra: dot products and the BLAS ops, NumPy's and "
                              "SciPy's linear algebra, norms, Fourier transforms.",
    "jitgraph.tensor.neural": "Neural-network ops (Theano's ``theano.tensor.nnet``): "
                              "activations, softmax and cross-entropy, batch normalization.",
    "jitgraph.tensor.convolution": "Convolution, correlation, pooling, neighbourhoods and "
                                   "upsampling of images (``theano.tensor.nnet.abstract_conv``, "
                                   "``theano.tensor.signal``).",
    "jitgraph.tensor.extras": "Sorting, counting and running ops (``theano.tensor.sort``, "
                              "``theano.tensor.extra_ops``).",
    "jitgraph.tensor.printing": "How tensor graphs print: ``pprint`` rules and Theano's names "
                                "of elementwise ops.",
    "jitgraph.backend_cpu.lowering": "Op type -> lowering: the registry and one module per op "
                                     "family, each registering how its ops run on the CPU.",
    "jitgraph.backend_cpu.codegen": "Generated kernel sources (elementwise, reductions, "
                                    "convolutions, pooling, scan loops, sparse loops) and their "
                                    "compilation into kernels.",
    "jitgraph.backend_cpu.runtime": "What runs a compiled graph: the generated driver and its "
                                    "program, stored programs, threads, NumPy's BLAS, and the "
                                    "helpers kernels import by name.",
    "jitgraph.backend_cpu.native": None,  # written by write_native_init()
}

_T, _B = "jitgraph.tensor", "jitgraph.backend_cpu"


def _group(old_pkg: str, new_pkg: str, names: str) -> list[tuple[str, str]]:
    """``"a b:c"`` -> moves of ``old_pkg.a`` to ``new_pkg.a`` and ``old_pkg.b`` to ``new_pkg.c``."""
    out = []
    for item in names.split():
        old, _, new = item.partition(":")
        out.append((f"{old_pkg}.{old}", f"{new_pkg}.{new or old}"))
    return out


#: old module path -> new module path. Theano's alias modules (blas_c, opt, raw_random,
#: sharedvar, ...), the Theano packages ``tensor/nnet`` and ``tensor/signal`` and
#: ``shape_index_names`` (the ``T`` namespace) stay where they are: the facade serves them.
MOVES: list[tuple[str, str]] = [
    *_group(_T, f"{_T}.core", "type var dtypes conversion constructors type_other basic helpers "
                              "default io utils gradient grad_check grad_ops rop sharedvar "
                              "theano_op_classes"),
    *_group(_T, f"{_T}.elementwise", "scalar_op_base scalar_ops elemwise composite math "
                                     "math_extra complex_math special_functions xlogx inplace "
                                     "reduction reduction_reference statistics"),
    *_group(_T, f"{_T}.indexing", "subtensor subtensor_ops index_encoding index_helpers "
                                  "boolean_index index_ravel nonzero_ops reorder"),
    *_group(_T, f"{_T}.shaping", "shape dims rebroadcast assemble diag_ops diagonal_fill "
                                 "special_matrices"),
    *_group(_T, f"{_T}.linalg", "blas dot_functions nlinalg slinalg linalg_common:common "
                                "linalg_norms:norms fft fourier"),
    *_group(_T, f"{_T}.neural", "activations softmax_xent batchnorm batchnorm_ops confusion "
                                "hierarchical_softmax prepend"),
    *_group(_T, f"{_T}.convolution", "conv conv_functions conv_legacy conv_reference "
                                     "conv_shapes corr pool pool_reference neighbours "
                                     "upsampling"),
    *_group(_T, f"{_T}.extras", "sort unique binning cumulative extra_ops"),
    *_group(_T, f"{_T}.printing", "pprint_rules theano_names"),
    *_group(_B, f"{_B}.lowering", "registry lower_blas:blas lower_conv:conv "
                                  "lower_elemwise:elemwise lower_extra_ops:extra_ops "
                                  "lower_ifelse:ifelse lower_linalg:linalg lower_nnet:nnet "
                                  "lower_pool:pool lower_random:random lower_reduce:reduce "
                                  "lower_scan:scan lower_sparse:sparse lower_views:views"),
    *_group(_B, f"{_B}.codegen", "kernels compile_ahead compose scalar_templates "
                                 "elemwise_codegen:elemwise reduce_codegen:reduce "
                                 "conv_codegen:conv pool_codegen:pool loop_codegen:loop "
                                 "loop_nodes sparse_kernels"),
    *_group(_B, f"{_B}.runtime", "driver program stored_program parallel blas_threads cblas "
                                 "conv_gemm helpers complex_scalar vecmath blocks"),
    # the native toolchain; ``native`` (the module) becomes the package's ``objects``
    *_group(_B, f"{_B}.native", "native:objects native_ir:entry_ir elf_loader direct "
                                "direct_env direct_intrinsics direct_lower direct_ops "
                                "direct_types direct_values"),
]

NATIVE = f"{_B}.native"


# ---------------------------------------------------------------------------------------------
# Files

def module_file(module: str) -> Path:
    return ROOT / (module.replace(".", "/") + ".py")


def package_init(package: str) -> Path:
    return ROOT / package.replace(".", "/") / "__init__.py"


def plan() -> tuple[list[tuple[str, str]], list[str]]:
    """The moves to make now, and one line per entry skipped (done or missing)."""
    todo, skipped = [], []
    for old, new in MOVES:
        if module_file(old).is_file() and not (old == NATIVE and package_init(NATIVE).is_file()):
            if module_file(new).exists():
                skipped.append(f"conflict  {old} -> {new}: both files exist")
            else:
                todo.append((old, new))
        elif module_file(new).is_file():
            skipped.append(f"done      {old} -> {new}")
        else:
            skipped.append(f"missing   {old} -> {new}: no source file (moved or removed?)")
    return todo, skipped


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def move_files(todo: list[tuple[str, str]]) -> None:
    for package, doc in PACKAGES.items():
        init = package_init(package)
        if not any(new.startswith(package + ".") for _, new in todo) or init.exists():
            continue
        init.parent.mkdir(parents=True, exist_ok=True)
        if doc is not None:
            init.write_text(f'"""{_wrap(doc)}"""\n')
    # ``backend_cpu/native.py`` must leave before ``native/`` can hold files
    for old, new in sorted(todo, key=lambda m: m[0] != NATIVE):
        src, dst = module_file(old), module_file(new)
        dst.parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(src.relative_to(ROOT)), str(dst.relative_to(ROOT)))
    for package in PACKAGES:
        init = package_init(package)
        if init.exists():
            git("add", str(init.relative_to(ROOT)))


def _wrap(text: str, width: int = 96) -> str:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "\n".join(lines)


def files_to_scan() -> list[Path]:
    out = []
    for entry in SCAN:
        path = ROOT / entry
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
                out.extend(Path(dirpath) / f for f in filenames if f.endswith(SUFFIXES))
    return [p for p in out if str(p.relative_to(ROOT)) not in KEEP]


# ---------------------------------------------------------------------------------------------
# Rewriting references

def dotted_pattern(moves: list[tuple[str, str]]) -> re.Pattern | None:
    """One pattern for every old dotted path (longest first, so one pass never rewrites a path
    twice). An old path that is the prefix of new ones (``backend_cpu.native`` becomes a
    package) does not match where it is followed by one of them."""
    if not moves:
        return None
    alts = []
    for old, _ in sorted(moves, key=lambda m: -len(m[0])):
        children = sorted({new[len(old) + 1:].split(".")[0] for _, new in MOVES
                           if new.startswith(old + ".")})
        guard = f"(?!\\.(?:{'|'.join(children)})\\b)" if children else ""
        alts.append(re.escape(old) + guard)
    return re.compile(r"(?<![\w.])(" + "|".join(alts) + r")(?![\w])")


def path_pattern(moves: list[tuple[str, str]]) -> re.Pattern | None:
    """File paths of the old modules: ``jitgraph/tensor/basic.py`` and ``tensor/basic.py``."""
    if not moves:
        return None
    alts = []
    for old, _ in sorted(moves, key=lambda m: -len(m[0])):
        rel = old.replace(".", "/")[len("jitgraph/"):] + ".py"
        alts.append(r"(?:jitgraph/)?" + re.escape(rel))
    return re.compile(r"(?<![\w./])(" + "|".join(alts) + r")(?![\w])")


def rewrite_text(text: str, moves: list[tuple[str, str]], dotted: re.Pattern | None,
                 paths: re.Pattern | None) -> str:
    table = dict(moves)
    if dotted is not None:
        text = dotted.sub(lambda m: table[m.group(1)], text)
    if paths is not None:
        by_rel = {}
        for old, new in moves:
            rel_old = old.replace(".", "/") + ".py"
            rel_new = new.replace(".", "/") + ".py"
            by_rel[rel_old] = rel_new
            by_rel[rel_old[len("jitgraph/"):]] = rel_new[len("jitgraph/"):]
        text = paths.sub(lambda m: by_rel[m.group(1)], text)
    return text


def rewrite_package_imports(source: str, moves: list[tuple[str, str]],
                            package_attrs: dict[str, set[str]]) -> str:
    """``from jitgraph.tensor import basic as B`` -> ``from jitgraph.tensor.core import basic
    as B``. A name the package itself defines (``jitgraph.tensor.shape`` is also the function
    ``shape``) is the package's attribute, not the module: left alone."""
    table = dict(moves)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.split("\n")
    edits = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
            continue
        moved, kept = {}, []
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            if full in table and alias.name not in package_attrs.get(node.module, set()):
                new_pkg, _, new_name = table[full].rpartition(".")
                local = alias.asname or alias.name
                item = new_name if local == new_name else f"{new_name} as {local}"
                moved.setdefault(new_pkg, []).append(item)
            else:
                kept.append(alias.name if alias.asname is None
                            else f"{alias.name} as {alias.asname}")
        if not moved:
            continue
        indent = lines[node.lineno - 1][:node.col_offset]
        old_text = "\n".join(lines[node.lineno - 1:node.end_lineno])
        comment = "  # noqa: F401" if "noqa" in old_text else ""
        tail = lines[node.end_lineno - 1][node.end_col_offset:]
        stmts = []
        if kept:
            stmts.append(_from_import(indent, node.module, kept) + comment)
        for pkg in sorted(moved):
            stmts.append(_from_import(indent, pkg, moved[pkg]) + comment)
        text = "\n".join(stmts)
        if tail.strip() and not tail.strip().startswith("#"):
            continue  # ``from a import b; more`` on one line: leave it to a person
        edits.append((node.lineno, node.end_lineno, text + ("" if comment else tail)))
    for start, end, text in sorted(edits, reverse=True):
        lines[start - 1:end] = text.split("\n")
    return "\n".join(lines)


def rewrap_imports(source: str, width: int = 100) -> str:
    """Every ``from x import ...`` statement with a line over ``width`` written again (the
    longer new module paths push some past the limit)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.split("\n")
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        span = lines[node.lineno - 1:node.end_lineno]
        if all(len(line) <= width for line in span):
            continue
        tail = lines[node.end_lineno - 1][node.end_col_offset:]
        comments = [c for c in re.findall(r"#.*", "\n".join(span)) if c not in tail]
        names = [a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names]
        text = _from_import(lines[node.lineno - 1][:node.col_offset], node.module, names, width)
        if comments and not tail.strip():
            tail = "  " + comments[0]
        edits.append((node.lineno, node.end_lineno, text + tail))
    for start, end, text in sorted(edits, reverse=True):
        lines[start - 1:end] = text.split("\n")
    return "\n".join(lines)


def _from_import(indent: str, module: str, names: list[str], width: int = 100) -> str:
    line = f"{indent}from {module} import {', '.join(names)}"
    if len(line) <= width:
        return line
    head = f"{indent}from {module} import ("
    out, cur = [], head
    for i, name in enumerate(names):
        piece = name + (", " if i < len(names) - 1 else ")")
        if len(cur) + len(piece.rstrip()) > width and cur != head:
            out.append(cur.rstrip())
            cur = " " * len(head) + piece
        else:
            cur += piece
    out.append(cur.rstrip())
    return "\n".join(out)


def package_attributes(moves: list[tuple[str, str]]) -> dict[str, set[str]]:
    """Per old parent package: the names it binds to something other than a module (read from
    its ``__init__.py``: ``def``/``class``/assignments and names imported from elsewhere)."""
    out: dict[str, set[str]] = {}
    for parent in {old.rpartition(".")[0] for old, _ in moves}:
        init = package_init(parent)
        names: set[str] = set()
        if init.is_file():
            tree = ast.parse(init.read_text())
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Assign):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
                elif isinstance(node, ast.ImportFrom) and node.module != parent:
                    for alias in node.names:
                        if alias.name == "*":
                            names.update(_star_names(node.module))
                        else:
                            names.add(alias.asname or alias.name)
        out[parent] = names
    return out


def _star_names(module: str | None) -> set[str]:
    """The ``__all__`` of ``module``, read from its source (without importing it)."""
    if module is None:
        return set()
    for path in (module_file(module), package_init(module)):
        if path.is_file():
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                    try:
                        return set(ast.literal_eval(node.value))
                    except ValueError:
                        return set()
    return set()


def rewrite_references(moves: list[tuple[str, str]], attrs: dict[str, set[str]]) -> list[Path]:
    """Rewrite every reference to the old paths of ``moves`` (``attrs``: see
    :func:`package_attributes`, read before the files moved). jitgraph's modules outside the
    native toolchain keep naming ``backend_cpu.native``: the package is the boundary they use."""
    outside = [(old, new) for old, new in moves if old != NATIVE]
    native_dir = ROOT / NATIVE.replace(".", "/")
    patterns = {id(moves): (dotted_pattern(moves), path_pattern(moves)),
                id(outside): (dotted_pattern(outside), path_pattern(outside))}
    changed = []
    for path in files_to_scan():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        in_jitgraph = (ROOT / "jitgraph") in path.parents and native_dir not in path.parents
        table = outside if in_jitgraph else moves
        dotted, paths = patterns[id(table)]
        # dotted paths first: a ``from package import module`` rewritten afterwards is not
        # rewritten again (``from jitgraph.backend_cpu.native import objects``)
        new = rewrite_text(text, table, dotted, paths)
        if path.suffix == ".py":
            new = rewrite_package_imports(new, table, attrs)
            if new != text:
                new = rewrap_imports(new)
        if new != text:
            path.write_text(new)
            changed.append(path)
            before = {line for line in text.split("\n") if len(line) > 100}
            for k, line in enumerate(new.split("\n"), 1):
                if len(line) > 100 and line not in before and path.suffix == ".py":
                    print(f"long line {path.relative_to(ROOT)}:{k} ({len(line)} characters): "
                          "rewrap by hand")
    return changed


# ---------------------------------------------------------------------------------------------
# The native toolchain's boundary

NATIVE_README = """# backend_cpu/native: jitgraph's own native toolchain

Kernels are Python source generated by `backend_cpu/codegen`. This package turns such a kernel
into machine code and loads it, without a C compiler and, in a warm process, without Numba:

* `direct.py` (with `direct_lower.py`, `direct_ops.py`, `direct_intrinsics.py`,
  `direct_types.py`, `direct_values.py`, `direct_env.py`): the direct compiler, generated Python
  -> LLVM IR with Numba's typing and semantics, through llvmlite only. Kernels it cannot
  translate fall back to Numba.
* `entry_ir.py`: the CPython entry point of a kernel (argument parsing, array checks, the call),
  written as LLVM IR text from the kernel's signature.
* `objects.py`: compiling that IR to one relocatable object, storing it in the compiledir and
  loading it again (through llvmlite's JIT, or `elf_loader.py`).
* `elf_loader.py`: a loader for those ELF objects (Linux x86-64) that needs no LLVM at all.

Code outside this package imports from `jitgraph.backend_cpu.native` (the names
`__init__.py` re-exports), not from the modules inside it; tests may reach inside.
"""


def native_uses() -> dict[str, set[str]]:
    """Per module of the native package: the names code outside it (in jitgraph/) imports from
    it or reads as ``native.<name>``."""
    uses: dict[str, set[str]] = {}
    pkg_dir = ROOT / NATIVE.replace(".", "/")
    objects = f"{NATIVE}.objects"
    for path in (ROOT / "jitgraph").rglob("*.py"):
        if pkg_dir in path.parents:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == NATIVE:
                for alias in node.names:
                    if not (pkg_dir / f"{alias.name}.py").exists():
                        uses.setdefault(objects, set()).add(alias.name)
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id == "native"):
                uses.setdefault(objects, set()).add(node.attr)
    return uses


def write_native_init() -> None:
    init = package_init(NATIVE)
    if not (init.parent / "objects.py").exists():
        return
    objects_src = (init.parent / "objects.py").read_text()
    defined = {n.name for n in ast.parse(objects_src).body
               if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    defined |= {t.id for n in ast.parse(objects_src).body if isinstance(n, ast.Assign)
                for t in n.targets if isinstance(t, ast.Name)}
    used = sorted(n for n in native_uses().get(f"{NATIVE}.objects", set()) if n in defined)
    body = ['"""jitgraph\'s native toolchain: generated kernels -> LLVM IR -> one native object,',
            "stored and loaded again without Numba (see README.md). What the rest of jitgraph",
            'uses of it is re-exported here; the modules inside are its implementation."""', "",
            "from __future__ import annotations", ""]
    if used:
        body.append(_from_import("", f"{NATIVE}.objects", used))
        body.append("")
        body.append(_wrap("__all__ = [" + ", ".join(f'"{n}"' for n in used) + "]")
                    .replace("\n", "\n           "))
    init.write_text("\n".join(body) + "\n")
    (init.parent / "README.md").write_text(NATIVE_README)
    git("add", str(init.relative_to(ROOT)), str((init.parent / "README.md").relative_to(ROOT)))


# ---------------------------------------------------------------------------------------------
# Old paths: the compatibility table and the facade's rows

def theano_public(moves: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The moved modules that are Theano module paths (``theano.tensor.basic`` is
    ``jitgraph.tensor.basic``): each needs a row in the facade's table of Theano paths."""
    listed = set(json.loads((ROOT / THEANO_MODULES).read_text()))
    return [(old, new) for old, new in moves if "theano" + old[len("jitgraph"):] in listed]


COMPAT_TEMPLATE = '''"""Modules that moved into subpackages (issue 26, ``tools/restructure.py``): old module path ->
new one. The facade's finder (:mod:`jitgraph._facade.finder`) serves each old path as the new
module itself (one module object under two names), so that pickles naming an old module (a
user's pickled function) and Theano's public paths (``theano.tensor.basic`` is
``jitgraph.tensor.basic``) still import. Written by ``tools/restructure.py``; data only."""

from __future__ import annotations

#: old module path -> new module path
MOVED: dict[str, str] = {
%s}
'''


def write_compat(moves_done: list[tuple[str, str]]) -> None:
    path = ROOT / COMPAT_MODULE
    table: dict[str, str] = {}
    if path.is_file():  # keep the rows of earlier runs
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "MOVED":
                table.update(ast.literal_eval(node.value))
    table.update(dict(moves_done))
    # an old module that became the package of its new path (backend_cpu.native) is the real
    # package now: aliasing it would import itself
    table = {old: new for old, new in table.items() if not new.startswith(old + ".")}
    rows = "".join(f'    "{old}": "{new}",\n' for old, new in sorted(table.items()))
    path.write_text(COMPAT_TEMPLATE % rows)
    git("add", COMPAT_MODULE)


def _after_docstring_and_future(text: str) -> int:
    tree = ast.parse(text)
    line = 0
    for node in tree.body:
        is_doc = (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                  and isinstance(node.value.value, str))
        is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if is_doc or is_future:
            line = node.end_lineno
        else:
            break
    return line + (1 if line else 0)


# ---------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apply", action="store_true", help="move and rewrite (default: "
                        "only report)")
    parser.add_argument("--no-compat", action="store_true", help="do not write "
                        f"{COMPAT_MODULE} (when the facade serves every old path)")
    args = parser.parse_args(argv)
    todo, skipped = plan()
    for line in skipped:
        print(line)
    for old, new in todo:
        print(f"move      {old} -> {new}")
    facade = theano_public(todo) or theano_public(
        [(o, n) for o, n in MOVES if module_file(n).is_file()])
    print(f"\n{len(todo)} to move, {len(skipped)} skipped; Theano public paths needing a facade "
          f"row: {len(facade)}")
    for old, new in facade:
        print(f"facade    {old} -> {new}")
    if not args.apply:
        return 0
    attrs = package_attributes(todo)  # read while the old files are still there
    move_files(todo)
    changed = rewrite_references(todo, attrs)
    write_native_init()
    if not args.no_compat:
        write_compat(todo)
    (ROOT / FACADE_ROWS).write_text(json.dumps(
        [{"old": old, "new": new, "theano": "theano" + old[len("jitgraph"):]}
         for old, new in facade], indent=1) + "\n")
    print(f"rewrote references in {len(changed)} files; facade rows in {FACADE_ROWS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
