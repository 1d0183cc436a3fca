"""``.. jitgraph-unavailable::``: the Theano 1.0.5 names and modules jitgraph cannot provide,
generated from where the code declares them.

Three sources, read when the pages are built:

* the facade's table (:data:`jitgraph._facade.paths.MODULES`): a row's ``unavailable`` names
  (placeholders raising ``NotAvailableError``), its ``import_error`` (the module cannot be
  imported) and its ``warning`` (importing it warns);
* the modules that bind placeholders themselves with ``unavailable_names`` (found by reading the
  package's sources for that call);
* ``theano.gpuarray`` (the pygpu back end), whose functions raise ``GpuArrayBackendUnavailable``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

_BINDS_PLACEHOLDERS = "unavailable_names(__name__"


def theano_path(module: str) -> str:
    """``jitgraph.x.y`` as Theano spells it (``theano.x.y``)."""
    return "theano" + module[len("jitgraph"):]


def _modules_binding_placeholders() -> list[str]:
    import jitgraph

    root = Path(jitgraph.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if _BINDS_PLACEHOLDERS in path.read_text(encoding="utf-8"):
            parts = path.relative_to(root.parent).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _placeholder_groups(module: str) -> dict[str, list[str]]:
    """reason -> names, for the placeholders ``module`` binds."""
    from jitgraph.unavailable import unavailable

    meta = type(unavailable("m", "n", "r"))
    groups: dict[str, list[str]] = {}
    for name, value in vars(importlib.import_module(module)).items():
        if type(value) is meta:
            reason = value._message.partition(" is not available in jitgraph: ")[2]
            groups.setdefault(reason, []).append(name)
    return groups


def rows() -> list[tuple[str, str, str]]:
    """(Theano module, names, what happens and why), facade rows first."""
    from jitgraph._facade.paths import MODULES

    out = []
    for module, row in MODULES.items():
        if row.import_error:
            out.append((theano_path(module), "(the module)",
                        f"import raises ImportError: {row.import_error}"))
        if row.warning:
            out.append((theano_path(module), "(the module)",
                        f"import warns (DeprecationWarning): {row.warning}"))
        groups: dict[str, list[str]] = {}
        for name, reason in row.unavailable.items():
            groups.setdefault(reason, []).append(name)
        for reason, names in groups.items():
            out.append((theano_path(module), ", ".join(names),
                        f"NotAvailableError when used: {reason}"))
    for module in _modules_binding_placeholders():
        for reason, names in _placeholder_groups(module).items():
            out.append((theano_path(module), ", ".join(sorted(names)),
                        f"NotAvailableError when used: {reason}"))
    from jitgraph.gpuarray import _INSTEAD

    out.append(("theano.gpuarray", "use, init_dev, any other name but pygpu_activated",
                f"GpuArrayBackendUnavailable (use, init_dev) or AttributeError: {_INSTEAD}"))
    return out


def _table(headers: tuple[str, ...], body: list[tuple[str, ...]],
           widths: tuple[int, ...]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    for cells, part in (([headers], nodes.thead()), (body, nodes.tbody())):
        for cell_texts in cells:
            row = nodes.row()
            for index, text in enumerate(cell_texts):
                entry = nodes.entry()
                paragraph = nodes.paragraph()
                in_body = part.tagname == "tbody"
                paragraph += (nodes.literal(text=text) if in_body and index < 2
                              else nodes.Text(text))
                entry += paragraph
                row += entry
            part += row
        group += part
    return table


class UnavailableReference(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        return [_table(("Theano module", "names", "what happens, and why"), rows(), (25, 30, 45))]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("jitgraph-unavailable", UnavailableReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
