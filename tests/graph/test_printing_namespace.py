"""``jitgraph.printing`` has Theano 1.0's ``theano.printing`` names, each the working object."""

from __future__ import annotations

import pytest

import jitgraph.printing as printing
from jitgraph.compile.function_call import Function
from jitgraph.compile.sharedvalue import SharedVariable
from jitgraph.config import config
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op

#: ``dir(theano.printing)``'s public names in Theano 1.0.5
THEANO_PRINTING = [
    "Apply", "DefaultPrinter", "Function", "FunctionPrinter", "IgnorePrinter", "LeafPrinter",
    "Op", "OperatorPrinter", "PPrinter", "PatternPrinter", "Print", "PrinterState",
    "SharedVariable", "config", "debugprint", "default_printer", "hex_digest", "leaf_printer",
    "min_informative_str", "position_independent_str", "pp", "pprint", "pydotprint",
    "var_descriptor",
]


@pytest.mark.parametrize("name", THEANO_PRINTING)
def test_every_theano_name_exists(name):
    assert getattr(printing, name) is not None
    assert name in dir(printing)


def test_reexports_are_the_library_objects():
    assert printing.Function is Function
    assert printing.SharedVariable is SharedVariable
    assert printing.config is config
    assert printing.Apply is Apply and printing.Op is Op
    assert printing.pp is printing.pprint
    assert isinstance(printing.default_printer, printing.DefaultPrinter)
    assert isinstance(printing.leaf_printer, printing.LeafPrinter)
    assert isinstance(printing.pprint, printing.PPrinter)
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        printing.nonexistent  # noqa: B018
