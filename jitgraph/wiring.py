"""What lower layers ask for by name, and which higher layer provides it.

A lower layer never imports a higher one; when it needs what only a higher layer can give
(``Variable.eval`` compiles a function, the rewrite engine loads the modules that register
rewrites, the compiler loads the backends), it asks :mod:`jitgraph.services` for a named service.
This module, at the top of the package and imported by ``jitgraph/__init__.py`` before anything
else can ask, names each provider; each is imported on first use, so ``import jitgraph`` stays
cheap. See docs/architecture.md.
"""

from __future__ import annotations

import importlib

from jitgraph import services

#: the modules that register rewrites into the rewrite engine's database, imported before the
#: first graph is rewritten (the engine sits below them and does not name them)
REWRITE_MODULES: tuple[str, ...] = (
    "jitgraph.tensor.rewriting.canonicalize",
    "jitgraph.tensor.rewriting.subtensor_merge",
    "jitgraph.tensor.rewriting.subtensor_lift",
    "jitgraph.tensor.rewriting.shape",
    "jitgraph.tensor.rewriting.sigmoid",
    "jitgraph.tensor.rewriting.stabilize",
    "jitgraph.tensor.rewriting.specialize",
    "jitgraph.tensor.rewriting.blas",
    "jitgraph.tensor.rewriting.fusion",
    "jitgraph.tensor.rewriting.inplace",
    "jitgraph.rewrite.view_ops",
    "jitgraph.tensor.rewriting.crossentropy",
)

#: the rewrite modules of optional op families, by the module defining the family's ops: imported
#: before a graph is rewritten once that module is (an op of the family can exist in a graph,
#: an inner graph among them, only then), so that a cold compile of a graph without scans or
#: ifelses does not import them (~25 ms). Their rewrites act only on the family's nodes, no other
#: rewrite makes such a node, and they sit at explicit positions (or, the abstract convolutions'
#: gemm rewrite, last in specialize either way), so the rewritten graph is the same as with
#: eager loading (tests/compile/test_lazy_family_rewrites.py).
FAMILY_REWRITE_MODULES: dict[str, tuple[str, ...]] = {
    "jitgraph.scan.op": ("jitgraph.scan.rewrites",),
    "jitgraph.ifelse.op": ("jitgraph.ifelse.lazy", "jitgraph.ifelse.rewrites"),
    "jitgraph.tensor.convolution.conv": ("jitgraph.tensor.rewriting.conv",),
    "jitgraph.tensor.core.assertion": ("jitgraph.tensor.rewriting.assert_rewrites",),
}

#: the backends: modules that each register one ``jitgraph.compile.backend.Backend`` when
#: imported. The compiler names none of them; it imports these (all of them, before it hands
#: out the first linker), as it would load entry points. Neither imports Numba nor CuPy.
BACKEND_MODULES: tuple[str, ...] = ("jitgraph.backend_cpu.backend", "jitgraph.backend_gpu.backend")


def _attribute(module: str, name: str):  # noqa: ANN202
    """A loader of ``module.name`` (the module is imported when the service is first used)."""
    return lambda: getattr(importlib.import_module(module), name)


# service name -> its provider
services.provide("function", _attribute("jitgraph.compile.function", "function"))  # eval
services.provide("as_tensor_variable",  # graph-level ops given plain values
                 _attribute("jitgraph.tensor.core.conversion", "as_tensor_variable"))
services.provide("apply_scalar_op",  # a scalar-op table entry called on scalar variables
                 _attribute("jitgraph.scalar.apply", "apply_scalar_op"))
services.provide("scalar_type_rule",  # a table entry's output_types_preference
                 _attribute("jitgraph.scalar.type_rules", "table_rule"))
services.provide("rewrite_modules", lambda: REWRITE_MODULES)
services.provide("family_rewrite_modules", lambda: FAMILY_REWRITE_MODULES)
services.provide("backend_modules", lambda: BACKEND_MODULES)
services.provide("shared_kinds", lambda: importlib.import_module("jitgraph.shared_kinds"))


__all__ = ["BACKEND_MODULES", "FAMILY_REWRITE_MODULES", "REWRITE_MODULES"]
