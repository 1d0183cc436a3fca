"""``theano.printing``: the ``Print`` op and the graph printers, at Theano's import path.

* :func:`debugprint` -- the graph as an indented tree (:mod:`jitgraph.graph.printing`);
* :func:`pprint` / :func:`pp` -- a one-line formula, and the printer classes to give a new op a
  notation (:mod:`jitgraph.graph.pprinter`);
* :func:`pydotprint` -- a picture through pydot and Graphviz (:mod:`jitgraph.graph.pydotprint`);
* :class:`Print` -- an identity op printing its value when run (:mod:`jitgraph.graph.print_op`);
* :func:`min_informative_str`, :func:`var_descriptor`, :func:`position_independent_str`,
  :func:`hex_digest` -- short descriptions (:mod:`jitgraph.graph.describe`).

``Apply``, ``Op``, ``Function``, ``SharedVariable`` and ``config`` are re-exported as in Theano
(``Function`` and ``SharedVariable`` from ``jitgraph.compile``, added on first use by
:mod:`jitgraph._facade.paths`).
"""

from __future__ import annotations

from typing import Any

from jitgraph.config import config
from jitgraph.graph.basic import Apply
from jitgraph.graph.describe import (hex_digest, min_informative_str, position_independent_str,
                                     var_descriptor)
from jitgraph.graph.op import Op
from jitgraph.graph.pprinter import (DefaultPrinter, FunctionPrinter, IgnorePrinter,
                                     LeafPrinter, OperatorPrinter, PatternPrinter, PPrinter,
                                     PrinterState, default_printer, greek, leaf_printer, pp,
                                     pprint, special)
from jitgraph.graph.print_op import Print, _print_fn  # noqa: F401 (Theano has it too)
from jitgraph.graph.printing import char_id, debugprint
from jitgraph.graph.pydotprint import default_colorCodes, pydot_status, pydotprint

__all__ = ["Print", "pydotprint", "debugprint", "pprint", "pp", "min_informative_str",
           "var_descriptor", "position_independent_str", "hex_digest", "PPrinter",
           "OperatorPrinter", "PatternPrinter", "DefaultPrinter", "LeafPrinter",
           "IgnorePrinter", "FunctionPrinter", "PrinterState", "default_printer",
           "leaf_printer", "Apply", "Op", "Function", "SharedVariable", "config", "greek",
           "special", "default_colorCodes", "char_id"]


def __getattr__(name: str) -> Any:
    """``pydot_imported`` and ``pydot_imported_msg`` (Theano's): whether pydotprint can draw,
    and why not -- found on first use, as finding them runs Graphviz."""
    if name == "pydot_imported":
        return pydot_status()[0]
    if name == "pydot_imported_msg":
        return pydot_status()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
