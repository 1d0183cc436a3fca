"""Names a generated kernel refers to, resolved without executing anything: the module-level
imports, constants and functions of its source, and of the jitgraph modules it imports from
(read from their files: a plain function there is inlined where it is called; the helpers
:mod:`.direct_intrinsics` implements are recognised by their qualified name)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

from jitgraph.backend_cpu.native.direct_types import Unsupported
from jitgraph.backend_cpu.native.direct_values import (Intrinsic, Literal, Module, ModuleEnv,
                                                       PyFunction)

_PACKAGE = Path(__file__).resolve().parents[2]  # the jitgraph package folder
_MODULES = frozenset({"math", "numpy", "numba"})  # modules a kernel refers to by name
#: the helpers direct_intrinsics implements: "module.name" -> intrinsic name
_INTRINSICS = {
    "jitgraph.backend_cpu.runtime.helpers.stack_empty": "stack_empty",
    "jitgraph.backend_cpu.runtime.helpers.flat_view": "flat_view",
    "jitgraph.backend_cpu.runtime.vecmath.block_call": "block_call",
    "jitgraph.backend_cpu.runtime.vecmath.require": "require",
    "jitgraph.backend_cpu.runtime.vecmath.i64_as_f64": "i64_as_f64",
    "jitgraph.backend_cpu.runtime.vecmath.f64_as_i64": "f64_as_i64",
    "jitgraph.backend_cpu.runtime.vecmath.fmuladd": "fmuladd",
}


@cache
def module_env(source: str, module_name: str) -> ModuleEnv:
    """The module-level names of ``source`` (parsed, never executed)."""
    env = ModuleEnv(module_name)
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in _MODULES:
                    env.names[alias.asname or alias.name] = Module(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                env.names[alias.asname or alias.name] = ("import", node.module, alias.name)
        elif isinstance(node, ast.FunctionDef):
            env.functions[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.startswith("SIG_"):
                env.signatures[name[4:]] = node.value
            else:
                try:
                    env.names[name] = Literal(ast.literal_eval(node.value))
                except ValueError:
                    continue  # not a constant: an error only if a kernel uses it
    return env


@cache
def _package_module(name: str) -> ModuleEnv:
    """The environment of one of jitgraph's own modules, from its source file."""
    if not name.startswith("jitgraph."):
        raise Unsupported(f"import from {name}")
    path = _PACKAGE.joinpath(*name.split(".")[1:]).with_suffix(".py")
    if not path.is_file():
        raise Unsupported(f"module {name} has no source file")
    return module_env(path.read_text(encoding="utf-8"), name)


def resolve_global(env: ModuleEnv, name: str) -> Any:
    if f"{env.module}.{name}" in _INTRINSICS:
        return Intrinsic(_INTRINSICS[f"{env.module}.{name}"])
    if name in env.functions:
        return PyFunction(env.functions[name], env)
    bound = env.names.get(name)
    if isinstance(bound, tuple):  # ("import", module, name)
        _, module, attr = bound
        if f"{module}.{attr}" in _INTRINSICS:
            return Intrinsic(_INTRINSICS[f"{module}.{attr}"])
        return resolve_global(_package_module(module), attr)
    if bound is not None:
        return bound
    if name in ("range", "abs", "min", "max", "len", "float", "int", "bool"):
        return Intrinsic(name)
    if name == "ValueError":
        return ValueError
    raise Unsupported(f"global name {name!r}")
