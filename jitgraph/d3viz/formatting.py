"""``theano.d3viz.formatting``: :class:`PyDotFormatter`, which turns a compiled function (or
graph) into a ``pydot.Dot`` graph, with the label helpers. The drawing is
:func:`jitgraph.graph.pydotprint.build_dot`'s (the graph ``pydotprint`` draws); pydot is an
optional dependency (``pip install pydot``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.pydotprint import build_dot, import_pydot


def broadcastable_to_str(b: Any) -> str:
    """Theano's short name of a broadcastable pattern: ``scalar``, ``vector``, ``row``,
    ``col``, ``matrix``, else the pattern itself."""
    names = {(): "scalar", (False,): "vector", (False, True): "col", (True, False): "row",
             (False, False): "matrix"}
    return names.get(tuple(b), str(tuple(b)))


def dtype_to_char(dtype: Any) -> str:
    """The one-letter prefix of a dtype in Theano's constructors (``f``loat32, ``d``ouble,
    ``l``ong, ...), or the dtype itself."""
    chars = {"float32": "f", "float64": "d", "int8": "b", "int16": "w", "int32": "i",
             "int64": "l", "complex64": "c", "complex128": "z"}
    return chars.get(str(np.dtype(dtype)) if dtype is not None else "", str(dtype))


def type_to_str(t: Any) -> str:
    """A type as the name of its constructor: ``dmatrix``, ``fvector``, ... (else ``str``)."""
    dtype = getattr(t, "dtype", None)
    broadcastable = getattr(t, "broadcastable", None)
    if dtype is None or broadcastable is None:
        return str(t)
    return dtype_to_char(dtype) + broadcastable_to_str(broadcastable)


class PyDotFormatter:
    """``PyDotFormatter(compact=True)(fct)``: the ``pydot.Dot`` graph of ``fct`` (a compiled
    function, a FunctionGraph, a variable or a list of variables). ``compact``: no boxes for
    unnamed intermediate values."""

    def __init__(self, compact: bool = True) -> None:
        import_pydot()  # a clear error at once when pydot is missing
        self.compact = compact

    def __call__(self, fct: Any, graph: Any = None) -> Any:
        dot = build_dot(fct, compact=self.compact)
        if graph is not None:  # Theano let callers pass the graph to add to
            for node in dot.get_nodes():
                graph.add_node(node)
            for edge in dot.get_edges():
                graph.add_edge(edge)
            return graph
        return dot


__all__ = ["PyDotFormatter", "broadcastable_to_str", "dtype_to_char", "type_to_str"]
