"""``.. jitgraph-flags::``: every configuration flag, generated from the config registry.

Each flag is listed under its section (the part of its name before the last dot; top-level
flags under "global"), in registration order, with its type, default, allowed values, whether
it is read-only or ignored, and its doc. A default computed when first read (the compiledir,
...) is shown as this build's machine computed it, with the home folder written ``~``.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

_HOME = "/home/you"


def _default_text(param: Any, cfg: Any) -> str:
    if not param.lazy:
        return param.format_value(param.default_value())
    value = param.format_value(cfg.get(param.name)).replace(_HOME, "~")
    return f"{value or '(empty)'}  (computed when first read)"


def _section(name: str) -> str:
    return name.rpartition(".")[0] or "global"


def _flag_item(param: Any, cfg: Any) -> nodes.definition_list_item:
    term = nodes.term()
    term += nodes.literal(text=param.name)
    marks = [m for m, on in (("read-only", param.read_only),
                             ("ignored by jitgraph", bool(param.ignored_reason))) if on]
    if marks:
        term += nodes.Text(f"  [{', '.join(marks)}]")
    fields = nodes.field_list()
    rows = [("Type", param.kind), ("Default", _default_text(param, cfg)),
            ("Allowed", param.allowed())]
    if param.ignored_reason:
        rows.append(("Ignored", param.ignored_reason))
    for label, text in rows:
        field = nodes.field()
        field += nodes.field_name(text=label)
        body = nodes.field_body()
        body += nodes.paragraph(text=text)
        field += body
        fields += field
    definition = nodes.definition()
    definition += nodes.paragraph(text=param.doc)
    definition += fields
    item = nodes.definition_list_item(ids=[nodes.make_id(f"flag-{param.name}")])
    item += term
    item += definition
    return item


class FlagReference(SphinxDirective):
    """The whole registry, one definition list per section."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from jitgraph.config.flags import build_config

        cfg = build_config({"HOME": _HOME, "USER": "you"})  # no rc file, no THEANO_FLAGS
        sections: dict[str, list[Any]] = {}
        for name in cfg.flag_names():
            sections.setdefault(_section(name), []).append(cfg.param(name))
        out: list[nodes.Node] = [nodes.paragraph(
            text=f"{len(cfg.flag_names())} flags in {len(sections)} sections.")]
        for title, params in sections.items():
            section = nodes.section(ids=[nodes.make_id(f"flags-{title}")])
            section += nodes.title(text=title)
            listing = nodes.definition_list()
            for param in params:
                listing += _flag_item(param, cfg)
            section += listing
            out.append(section)
        return out


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("jitgraph-flags", FlagReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
