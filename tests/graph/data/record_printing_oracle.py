"""Record Theano 1.0.5's output for the printing cases (run under the oracle, not in CI):

    /work/shared/tools/theano-oracle tests/graph/data/record_printing_oracle.py

writes ``printing_oracle.json`` beside this script: case name -> the text Theano printed.
"""

import json
import os
import sys
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import theano  # noqa: E402
import theano.printing  # noqa: E402
import theano.tensor as T  # noqa: E402
from printing_cases import CASES  # noqa: E402

lib = SimpleNamespace(theano=theano, T=T, printing=theano.printing, Op=theano.gof.Op,
                      Apply=theano.gof.Apply, FunctionGraph=theano.gof.FunctionGraph)
results = {name: build(lib) for name, build in CASES.items()}
with open(os.path.join(HERE, "printing_oracle.json"), "w") as handle:
    json.dump({"theano": theano.__version__, "cases": results}, handle, indent=1,
              sort_keys=True)
    handle.write("\n")
print(f"recorded {len(results)} cases")
