"""``theano.d3viz.d3viz``: an interactive HTML view of a compiled function's graph.

``d3viz(fct, 'graph.html')`` writes a page holding the graph (Graphviz dot source, drawn by
:class:`~jitgraph.d3viz.formatting.PyDotFormatter`) and the script that lays it out in the
browser with d3, dagre-d3 and graphlib-dot. jitgraph does not ship those JavaScript libraries:
the page loads them from a public CDN, so viewing it needs network access (``copy_deps`` is
accepted for Theano's signature and changes nothing). ``d3write`` writes only the dot source.
Needs pydot (``pip install pydot``), not Graphviz.
"""

from __future__ import annotations

import html
import json
import os
import re
from typing import Any

from jitgraph.d3viz.formatting import PyDotFormatter

#: where the page loads its JavaScript libraries from
SCRIPTS = (
    "https://cdn.jsdelivr.net/npm/d3@3.5.17/d3.min.js",
    "https://cdn.jsdelivr.net/npm/graphlib-dot@0.6.4/dist/graphlib-dot.min.js",
    "https://cdn.jsdelivr.net/npm/dagre-d3@0.4.17/dist/dagre-d3.min.js",
)

_PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>{title}</title>
{scripts}
<style>
  body {{ font-family: sans-serif; margin: 0; }}
  svg {{ width: 100vw; height: 100vh; }}
  .node rect, .node ellipse {{ stroke: #333; stroke-width: 1px; }}
  .edgePath path {{ stroke: #333; fill: none; stroke-width: 1px; }}
  #nojs {{ padding: 1em; }}
</style>
</head>
<body>
<div id="nojs">This page draws the graph with d3 and dagre-d3, loaded from the network. If
nothing appears, the dot source is below.<pre>{escaped_dot}</pre></div>
<svg><g></g></svg>
<script>
var dotGraph = {dot_json};
(function () {{
  if (typeof d3 === "undefined" || typeof dagreD3 === "undefined" ||
      typeof graphlibDot === "undefined") return;
  document.getElementById("nojs").style.display = "none";
  var g = graphlibDot.read(dotGraph);
  g.nodes().forEach(function (v) {{
    var n = g.node(v);
    n.label = (n.label || v).replace(/\\\\n/g, "\\n");
    n.style = "fill: " + (n.fillcolor || "white");
    // dagre-d3 draws rect, ellipse, circle and diamond; Graphviz's box is its rect
    n.shape = {{box: "rect", ellipse: "ellipse", circle: "circle", diamond: "diamond"}}[n.shape]
      || "rect";
  }});
  var svg = d3.select("svg"), inner = svg.select("g");
  svg.call(d3.behavior.zoom().on("zoom", function () {{
    inner.attr("transform", "translate(" + d3.event.translate + ") scale(" + d3.event.scale + ")");
  }}));
  new dagreD3.render()(inner, g);
}})();
</script>
</body>
</html>
"""


def replace_patterns(x: str, replace: dict[str, str]) -> str:
    """``x`` with each key of ``replace`` replaced by its value (in the dict's order)."""
    for old, new in replace.items():
        x = x.replace(old, new)
    return x


def safe_json(obj: Any) -> str:
    """``obj`` as JSON that can sit inside a ``<script>`` element (no ``</`` sequence)."""
    return json.dumps(obj).replace("</", "<\\/")


def d3write(fct: Any, path: str, *args: Any, **kwargs: Any) -> None:
    """Write the dot source of ``fct``'s graph to ``path`` (arguments as
    :class:`PyDotFormatter`)."""
    graph = PyDotFormatter(*args, **kwargs)(fct)
    with open(path, "w") as handle:
        handle.write(graph.to_string())


def d3viz(fct: Any, outfile: str, copy_deps: bool = True, *args: Any, **kwargs: Any) -> None:
    """Write the HTML view of ``fct`` (a compiled function, a FunctionGraph, a variable or a
    list of variables) to ``outfile`` (folders are created); other arguments as
    :class:`PyDotFormatter`."""
    dot = PyDotFormatter(*args, **kwargs)(fct).to_string()
    folder = os.path.dirname(os.path.abspath(outfile))
    os.makedirs(folder, exist_ok=True)
    page = _PAGE.format(
        title=html.escape(os.path.basename(outfile)),
        scripts="\n".join(f'<script src="{src}"></script>' for src in SCRIPTS),
        escaped_dot=html.escape(dot),
        dot_json=safe_json(re.sub(r"\s*\n\s*", " ", dot)))
    with open(outfile, "w") as handle:
        handle.write(page)


__all__ = ["d3viz", "d3write", "replace_patterns", "safe_json", "SCRIPTS"]
