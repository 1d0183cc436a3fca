"""Records Theano 1.0.5's report of ``lenet_program.run`` into ``lenet_oracle.json`` (run under
the oracle, never in CI):

    ../shared/tools/theano-oracle tests/tensor/data/record_lenet_oracle.py
"""

import json
import os
import sys

import theano

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lenet_program  # noqa: E402

report = lenet_program.run(theano)
with open(os.path.join(HERE, "lenet_oracle.json"), "w") as f:
    json.dump(report, f, indent=1)
print(json.dumps(report))
