"""``pydotprint``: a picture of a graph through Graphviz, with Theano 1.0's drawing conventions.

Apply nodes are ellipses labelled with their op (coloured by kind: elementwise dark pink,
subtensor purple, alloc orange, shape brown, scan yellow, ifelse magenta, transfers red);
variables are boxes: graph inputs green (shared variables cyan), outputs blue, computed values
nobody uses grey. An edge into a node is labelled with the input's position when the node has
several inputs; it is blue when the output is a view of that input and red when the node
overwrites it. With ``compact`` (the default) unnamed intermediate values are not drawn as
boxes: their type labels the edge between the two nodes.

pydot (``pip install jitgraph[pydot]``) builds the graph. Writing an image (png, svg, pdf...)
also needs Graphviz's ``dot`` program; ``format='dot'`` (or ``'raw'``) writes the graph's dot
source without it.
"""

from __future__ import annotations

import errno
import functools
import os
from typing import Any

import numpy as np

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable, graph_inputs
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.pprinter import node_op_str

#: op class name fragment -> colour (the last matching entry wins); 'Output' colours outputs
default_colorCodes = {"GpuFromHost": "red", "HostFromGpu": "red", "Scan": "yellow",
                      "Shape": "brown", "IfElse": "magenta", "Elemwise": "#FFAABB",
                      "Subtensor": "#FFAAFF", "Alloc": "#FFAA22", "Output": "blue"}

#: formats written as dot source, without running Graphviz
SOURCE_FORMATS = ("dot", "raw")


def import_pydot() -> Any:
    try:
        import pydot
    except ImportError as exc:
        raise ImportError("pydotprint needs the pydot package, an optional dependency of "
                          "jitgraph: pip install jitgraph[pydot] (or pip install pydot); "
                          "images also need Graphviz's dot program") from exc
    return pydot


@functools.cache
def pydot_status() -> tuple[bool, str]:
    """``(True, "")`` when :func:`pydotprint` can draw pictures (pydot imports and Graphviz's
    ``dot`` runs), else ``(False, why)``: Theano's ``printing.pydot_imported`` and
    ``pydot_imported_msg``. Checked once, on first use (it runs Graphviz)."""
    try:
        pydot = import_pydot()
    except ImportError as exc:
        return False, str(exc)
    try:
        pydot.Dot().create(prog="dot", format="dot")
    except Exception as exc:  # noqa: BLE001  (pydot reports a missing Graphviz in many ways)
        return False, f"pydot imports, but Graphviz's dot program did not run: {exc}"
    return True, ""


class _Graph:
    """What is drawn: the nodes in order, the outputs, and the updates of a function."""

    def __init__(self, fct: Any) -> None:
        self.profile = None
        self.updates: dict[Variable, Variable] = {}  # update output -> the input it replaces
        maker_fgraph = getattr(getattr(fct, "maker", None), "fgraph", None)
        if isinstance(maker_fgraph, FunctionGraph):
            fgraph = maker_fgraph
            self.profile = getattr(fct, "profile", None)
            self.updates = _function_updates(fct, fgraph)
        elif isinstance(fct, FunctionGraph):
            fgraph = fct
        else:
            outs = [fct] if isinstance(fct, Variable) else \
                list(fct.outputs) if isinstance(fct, Apply) else \
                list(fct) if isinstance(fct, (list, tuple)) else []
            if not outs or not all(isinstance(v, Variable) for v in outs):
                raise TypeError("pydotprint draws a compiled function, a FunctionGraph, a "
                                "Variable, an Apply node or a list of Variables; got "
                                f"{type(fct).__name__}")
            inputs = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
            fgraph = FunctionGraph(inputs, outs, clone=True)
        self.fgraph = fgraph
        self.topo = fgraph.toposort()
        self.outputs = [o for o in fgraph.outputs if o not in self.updates]

    def clients(self, var: Variable) -> list:
        return self.fgraph.clients.get(var, [])


def _function_updates(fct: Any, fgraph: FunctionGraph) -> dict[Variable, Variable]:
    """Update output (in the rewritten graph) -> the graph input it will replace."""
    maker = fct.maker
    updates = list(getattr(maker, "updates", []) or [])
    if not updates:
        return {}
    n_explicit = len(maker.inputs)
    shared = list(getattr(maker, "shared_inputs", []))
    n_out = len(fgraph.outputs) - len(updates)
    result = {}
    for k, (var, _) in enumerate(updates):
        position = n_explicit + shared.index(var) if var in shared else None
        if position is not None and position < len(fgraph.inputs):
            result[fgraph.outputs[n_out + k]] = fgraph.inputs[position]
    return result


class _Labels:
    """Node identifiers and (unique, size-limited) labels, as Theano labels them."""

    def __init__(self, graph: _Graph, with_ids: bool, max_label_size: int,
                 var_with_name_simple: bool) -> None:
        self.graph = graph
        self.with_ids = with_ids
        self.max = max_label_size
        self.simple = var_with_name_simple
        self.ids: dict[Any, str] = {}
        self.texts: dict[Any, str] = {}
        self.used: set[str] = set()
        self.replaced_by = {new: old for new, old in graph.updates.items()}

    def _id(self, obj: Any, prefix: str) -> str:
        if obj not in self.ids:
            self.ids[obj] = f"{prefix}{len(self.ids)}"
        return self.ids[obj]

    def cut(self, text: str) -> str:
        return text if len(text) <= self.max else text[:self.max - 3] + "..."

    def var(self, var: Variable) -> tuple[str, str]:
        if var not in self.texts:
            self.texts[var] = self.cut(self._var_text(var))
            self.used.add(self.texts[var])
        return self.texts[var], self._id(var, "v")

    def _var_text(self, var: Variable) -> str:
        if var.name is not None:
            return var.name if self.simple else f"name={var.name} {var.type}"
        if isinstance(var, Constant):
            value = f"val={np.asarray(var.data)}".split("\n")[0]
            return f"{value} {var.type}"
        fed = self.graph.updates.get(var)
        if fed is not None and fed.name is not None:
            return fed.name if self.simple else f"{fed.name}{var.type}"
        return str(var.type)

    def apply(self, node: Apply) -> tuple[str, str]:
        if node not in self.texts:
            self.texts[node] = self._apply_text(node)
            self.used.add(self.texts[node])
        return self.texts[node], self._id(node, "n")

    def _apply_text(self, node: Apply) -> str:
        text = node_op_str(node).replace(":", "_")  # ':' means a port in dot
        text += _profile_text(self.graph.profile, node)
        if text in self.used or self.with_ids:
            suffix = f" id={self.graph.topo.index(node)}"
            if len(text) + len(suffix) > self.max:
                return text[:self.max - 3 - len(suffix)] + suffix + "..."
            return text + suffix
        if len(text) > self.max:
            text = text[:self.max - 3] + "..."
            k = 1
            while text in self.used:
                k += 1
                suffix = f" id={k}"
                text = text[:self.max - 3 - len(suffix)] + "..." + suffix
        return text


def _profile_text(profile: Any, node: Apply) -> str:
    if not profile:
        return ""
    times = getattr(profile, "apply_time", {}) or {}
    time = times.get(node, 0)
    total = getattr(profile, "fct_call_time", 0)
    share = time * 100 / total if getattr(profile, "fct_callcount", 0) and total else 0
    return f"   ({time:.3f}s,{share:.3f}%)"


def _node_colour(node: Apply, colour_codes: dict) -> str | None:
    colour = None
    for fragment, value in colour_codes.items():
        if fragment in type(node.op).__name__:
            colour = value
    return colour


def _box(pd: Any, ident: str, label: str, colour: str | None, high_contrast: bool,
         shape: str) -> Any:
    if colour is None:
        return pd.Node(ident, label=label, shape=shape)
    if high_contrast:
        return pd.Node(ident, label=label, style="filled", fillcolor=colour, shape=shape)
    return pd.Node(ident, label=label, color=colour, shape=shape)


def _input_edge_colour(node: Apply, k: int, colour_codes: dict) -> str | None:
    if any(k in ins for ins in getattr(node.op, "view_map", {}).values()):
        return colour_codes["Output"]
    if any(k in ins for ins in getattr(node.op, "destroy_map", {}).values()):
        return "red"
    return None


def build_dot(fct: Any, compact: bool = True, with_ids: bool = False,
              high_contrast: bool = True, cond_highlight: Any = None,
              colorCodes: dict | None = None, max_label_size: int = 70,
              var_with_name_simple: bool = False) -> Any:
    """The ``pydot.Dot`` graph :func:`pydotprint` writes (same arguments)."""
    pd = import_pydot()
    colour_codes = default_colorCodes if colorCodes is None else colorCodes
    graph = _Graph(fct)
    labels = _Labels(graph, with_ids, max_label_size, var_with_name_simple)
    dot = pd.Dot()
    clusters = _branch_clusters(pd, graph, cond_highlight)
    for node in graph.topo:
        text, ident = labels.apply(node)
        drawn = _box(pd, ident, text, _node_colour(node, colour_codes), high_contrast, "ellipse")
        dot.add_node(drawn)
        if clusters:
            for cluster, members in clusters:
                if node in members:
                    cluster.add_node(drawn)
                    break
        _draw_inputs(pd, dot, graph, labels, node, ident, compact, high_contrast, colour_codes)
        _draw_outputs(pd, dot, graph, labels, node, ident, compact, high_contrast, colour_codes)
    for new, old in graph.updates.items():
        dot.add_edge(pd.Edge(labels.var(new)[1], labels.var(old)[1], label="UPDATE",
                             color=colour_codes["Output"]))
    for cluster, _ in clusters:
        dot.add_subgraph(cluster)
    return dot


def _draw_inputs(pd: Any, dot: Any, graph: _Graph, labels: _Labels, node: Apply, ident: str,
                 compact: bool, high_contrast: bool, colour_codes: dict) -> None:
    for k, var in enumerate(node.inputs):
        text, var_id = labels.var(var)
        params: dict[str, str] = {}
        label = str(k) if len(node.inputs) > 1 else ""
        if label:
            params["label"] = label
        colour = _input_edge_colour(node, k, colour_codes)
        if colour is not None:
            params["color"] = colour
        if var.owner is None:
            fill = "cyan" if hasattr(var, "get_value") else "green"
            dot.add_node(_box(pd, var_id, text, fill, high_contrast, "box"))
            dot.add_edge(pd.Edge(var_id, ident, **params))
        elif var.name or not compact or var in graph.outputs:
            dot.add_edge(pd.Edge(var_id, ident, **params))
        else:  # compact: no box for an unnamed intermediate value, its type labels the edge
            params["label"] = labels.cut((label + " " if label else "") + str(var.type))
            dot.add_edge(pd.Edge(labels.apply(var.owner)[1], ident, **params))


def _draw_outputs(pd: Any, dot: Any, graph: _Graph, labels: _Labels, node: Apply, ident: str,
                  compact: bool, high_contrast: bool, colour_codes: dict) -> None:
    for k, var in enumerate(node.outputs):
        text, var_id = labels.var(var)
        label = labels.cut(str(k)) if len(node.outputs) > 1 else ""
        params = {"label": label} if label else {}
        if var in graph.outputs or var in graph.updates:
            dot.add_edge(pd.Edge(ident, var_id, **params))
            dot.add_node(_box(pd, var_id, text, colour_codes["Output"], high_contrast, "box"))
        elif not graph.clients(var):
            dot.add_edge(pd.Edge(ident, var_id, **params))
            dot.add_node(_box(pd, var_id, text, "grey", high_contrast, "box"))
        elif var.name or not compact:
            if compact:
                params["label"] = labels.cut((label + " " if label else "") + str(var.type))
            dot.add_edge(pd.Edge(ident, var_id, **params))
            dot.add_node(pd.Node(var_id, shape="box", label=text))


def _branch_clusters(pd: Any, graph: _Graph, cond_highlight: Any) -> list[tuple[Any, set]]:
    """With ``cond_highlight`` (an IfElse's name, or the IfElse node), the nodes only in the
    'then' branch, only in the 'else' branch, and in both, as clusters Left, Right, Middle."""
    if cond_highlight is None:
        return []
    cond = cond_highlight if isinstance(cond_highlight, Apply) else None
    for node in graph.topo:
        if cond is None and type(node.op).__name__ == "IfElse" and \
                getattr(node.op, "name", None) == cond_highlight:
            cond = node
    if cond is None or len(cond.inputs) < 3:
        import warnings

        warnings.warn("pydotprint: cond_highlight is set but there is no IfElse node of that "
                      "name in the graph", stacklevel=3)
        return []
    left, right = _ancestor_nodes(cond.inputs[1]), _ancestor_nodes(cond.inputs[2])
    middle = left & right
    return [(pd.Cluster("Left"), left - middle), (pd.Cluster("Right"), right - middle),
            (pd.Cluster("Middle"), middle)]


def _ancestor_nodes(var: Variable) -> set[Apply]:
    found: set[Apply] = set()
    stack = [var]
    while stack:
        owner = stack.pop().owner
        if owner is not None and owner not in found:
            found.add(owner)
            stack.extend(owner.inputs)
    return found


def _default_outfile(format: str) -> str:
    device = getattr(config, "device", "cpu")
    return os.path.join(str(config.compiledir), f"theano.pydotprint.{device}.{format}")


def _render(dot: Any, format: str) -> bytes:
    """The image bytes (Graphviz runs), or the dot source for the source formats."""
    if format in SOURCE_FORMATS:
        return dot.to_string().encode()
    try:
        return dot.create(prog="dot", format=format)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise
        raise RuntimeError(f"pydotprint: writing format={format!r} needs Graphviz's 'dot' "
                           "program, which was not found on the PATH. Install Graphviz "
                           "(e.g. apt-get install graphviz, conda install graphviz, brew "
                           "install graphviz), or pass format='dot' to write the graph source "
                           "without it") from exc


def pydotprint(fct: Any, outfile: str | None = None, compact: bool = True, format: str = "png",
               with_ids: bool = False, high_contrast: bool = True, cond_highlight: Any = None,
               colorCodes: dict | None = None, max_label_size: int = 70,
               scan_graphs: bool = False, var_with_name_simple: bool = False,
               print_output_file: bool = True, return_image: bool = False) -> Any:
    """Draw ``fct`` (a compiled function, a FunctionGraph, a Variable, an Apply node or a list
    of Variables) into ``outfile`` (default: ``<compiledir>/theano.pydotprint.<device>.<format>``;
    the ``.format`` extension is added when missing).

    ``compact``: no boxes for unnamed intermediate values. ``with_ids``: add each node's position
    in the execution order to its label. ``high_contrast``: fill nodes with their colour instead
    of colouring the border. ``colorCodes``: op class name fragment -> colour (see
    :data:`default_colorCodes`). ``max_label_size``: longer labels are cut with '...'.
    ``var_with_name_simple``: a named variable is labelled by its name only (else name and
    type). ``cond_highlight``: the name of an IfElse (or the node) whose branches are grouped in
    clusters. ``scan_graphs``: also draw each loop's inner graph, into
    ``<outfile base>_<op name>_<position><ext>``. ``return_image``: return the image bytes
    instead of writing a file. See the module docstring for pydot and Graphviz.
    """
    dot = build_dot(fct, compact, with_ids, high_contrast, cond_highlight, colorCodes,
                    max_label_size, var_with_name_simple)
    if return_image:
        return _render(dot, format)
    if outfile is None:
        outfile = _default_outfile(format)
    if not outfile.endswith("." + format):
        outfile += "." + format
    if scan_graphs:
        _draw_loops(_Graph(fct), outfile, compact, format, with_ids, high_contrast,
                    cond_highlight, colorCodes, max_label_size)
    data = _render(dot, format)
    with open(outfile, "wb") as handle:
        handle.write(data)
    if print_output_file:
        print("The output file is available at", outfile)
    return None


def _draw_loops(graph: _Graph, outfile: str, compact: bool, format: str, with_ids: bool,
                high_contrast: bool, cond_highlight: Any, colorCodes: dict | None,
                max_label_size: int) -> None:
    """One file per loop op (an op with ``debugprint_inner``) with its inner graph."""
    folder, filename = os.path.split(outfile)
    base, ext = os.path.splitext(filename)
    for position, node in enumerate(graph.topo):
        describe = getattr(node.op, "debugprint_inner", None)
        if describe is None:
            continue
        inner_outputs, _ = describe(node)
        name = getattr(node.op, "name", None)
        stem = f"{base}_{name}_{position}" if name else f"{base}_{position}"
        pydotprint(list(inner_outputs), os.path.join(folder, stem + ext), compact, format,
                   with_ids, high_contrast, cond_highlight, colorCodes, max_label_size,
                   scan_graphs=True, print_output_file=False)


__all__ = ["pydotprint", "build_dot", "default_colorCodes", "SOURCE_FORMATS", "import_pydot",
           "pydot_status"]
