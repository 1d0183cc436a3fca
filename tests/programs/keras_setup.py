"""What a Keras 2.3.1 script needs before ``import keras`` (imported by ``keras_models.py`` and
``keras_more.py``, which run under jitgraph and under the real Theano 1.0.5; Keras 1.2.2's
``keras1_programs.py`` imports it too, with its own few shims):

- ``theano`` names jitgraph when ``JITGRAPH_AS_THEANO=1`` (else the real Theano runs, with its
  Scan on the Python loop: its Cython part does not build on Python 3.11, while other ops keep
  their C code);
- the aliases Keras 2.3.1 uses that Python 3.10 (``collections.Iterable``, ...) and NumPy 2
  (``np.Inf``) removed;
- the Theano backend, warnings off, and Keras' "Using Theano backend." line kept off stderr.
"""

import collections
import collections.abc
import contextlib
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))

for _name in ("Iterable", "Mapping", "MutableMapping", "Sequence", "Callable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

if os.environ.get("JITGRAPH_AS_THEANO") == "1":
    import jitgraph

    jitgraph.provide_theano()
else:
    sys.modules["theano.scan_module.scan_perform_ext"] = None

os.environ["KERAS_BACKEND"] = "theano"
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

if not hasattr(np, "Inf"):  # Keras 2.3.1's callbacks use the alias NumPy 2.0 removed
    np.Inf = np.inf

with open(os.devnull, "w") as _devnull, contextlib.redirect_stderr(_devnull):
    import keras  # noqa: E402,F401


def record(path: str, results: dict, merge: bool) -> dict:
    """Write ``results`` as the expected values at ``path``; with ``merge``, over the values
    already there (a section recorded in two oracle modes). Returns what was written."""
    import json

    if merge and os.path.exists(path):
        with open(path) as previous:
            results = dict(json.load(previous), **results)
    with open(path, "w") as out:
        json.dump(results, out, indent=1, sort_keys=True)
        out.write("\n")
    return results
