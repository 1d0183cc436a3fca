"""Record Theano 1.0.5's answers to ``tests/misc/misc_cases.py`` into ``misc_oracle.json``, and
write ``theano_params.zip``, ``theano_other.zip`` and ``theano_graph.zip`` with Theano's
``pkl_utils.dump`` (run under
the oracle, from the repository root):

    ../shared/tools/theano-oracle tests/misc/data/record_misc_oracle.py
"""

import io
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import theano
import theano.tensor as T
from theano.misc import pkl_utils
from theano.misc.may_share_memory import may_share_memory
from theano.tensor import utils

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
import misc_cases  # noqa: E402


def outcome(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # recorded: the test checks the same kind of error
        return {"error": type(exc).__name__}


record = {
    "hash_from_ndarray": {name: utils.hash_from_ndarray(arr)
                          for name, arr in misc_cases.hash_arrays(np).items()},
    "hash_from_code": {code: utils.hash_from_code(code) for code in misc_cases.HASH_CODES},
    "hash_from_code_bytes": {code: utils.hash_from_code(code.encode())
                             for code in misc_cases.HASH_CODES},
    "hash_from_code_array": utils.hash_from_code(np.arange(3)),
    "may_share_memory": {
        name: [outcome(may_share_memory, a, b), outcome(may_share_memory, a, b, False)]
        for name, (a, b) in misc_cases.memory_cases(np, sp).items()},
    "shape_of_variables": {},
    "dump_entries": {},
    "default_protocol": pkl_utils.DEFAULT_PROTOCOL,
    "rng_first_randint": int(np.random.RandomState(3).randint(1000)),
}
for name, build in misc_cases.shape_cases(theano, T).items():
    inputs, outputs, shapes = build()
    fgraph = theano.FunctionGraph(inputs, outputs)  # cloned: Theano refuses cached constants
    found = utils.shape_of_variables(fgraph, dict(zip(fgraph.inputs, shapes)))
    record["shape_of_variables"][name] = {
        var.name: [int(d) for d in found[var]] for var in fgraph.inputs + fgraph.outputs}
for name, obj in misc_cases.dump_cases(theano, np).items():
    buf = io.BytesIO()
    pkl_utils.dump(obj, buf)
    record["dump_entries"][name] = [i.filename for i in zipfile.ZipFile(buf).infolist()]
(HERE / "misc_oracle.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")

W = theano.shared(np.arange(6.0).reshape(2, 3), name="W")
b = theano.shared(np.float32(1.5), name="b")
r = theano.shared(np.zeros((1, 3), "float32"), broadcastable=(True, False), name="r")
u = theano.shared(np.ones(2, "int32"))
with open(HERE / "theano_params.zip", "wb") as f:
    pkl_utils.dump({"params": [W, b, r, u, W], "arr": np.arange(4),
                    "nested": (np.eye(2), ["txt", None, 3])}, f)
rng = theano.shared(np.random.RandomState(3), name="rng")
S = theano.shared(sp.csr_matrix(np.arange(9.0).reshape(3, 3)), name="S")
with open(HERE / "theano_other.zip", "wb") as f:
    pkl_utils.dump([rng, S], f)
x = T.matrix("x")
with open(HERE / "theano_graph.zip", "wb") as f:
    pkl_utils.dump([W, T.dot(x, W)], f)
print("recorded", sum(len(v) for v in record.values() if isinstance(v, dict)), "answers")
