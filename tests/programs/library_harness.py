"""Runs programs of third-party libraries written for Theano 1.0 (downhill, theanets, PyMC3,
theano_lstm) and compares what they compute on jitgraph with what they computed on Theano 1.0.5.

A program module defines ``CASES`` (name -> function returning a list of floats) and ends with
``main(CASES, "<library>")``. Run as a script it prints one JSON line ``{case: values}``; with
``--record`` (under the oracle) it also writes ``expected/<library>.json``::

    cd tests/programs
    ORACLE_PY=1 PYTHONPATH=<libs> ../../../shared/tools/theano-oracle downhill_programs.py --record

With ``JITGRAPH_AS_THEANO=1`` the program's ``import theano`` is jitgraph. ``check`` (used by
the ``test_<library>.py`` files) runs a program so and compares.

The shims below are for the libraries' own incompatibilities with Python 3.11 and NumPy 2
(``collections.Callable``, ``np.cast``) and for theanets' dependency ``climate``, whose name
PyPI now gives to an unrelated package; they apply under both Theano and jitgraph.
"""

from __future__ import annotations

import collections
import collections.abc
import importlib
import importlib.util
import json
import logging
import os
import subprocess
import sys
import types
import warnings
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))


def setup() -> None:
    """``theano`` means jitgraph when ``JITGRAPH_AS_THEANO=1``; the shims, in every case."""
    if os.environ.get("JITGRAPH_AS_THEANO") == "1":
        import jitgraph

        jitgraph.provide_theano()
    warnings.filterwarnings("ignore")
    if not hasattr(collections, "Callable"):  # downhill: isinstance(x, collections.Callable)
        collections.Callable = collections.abc.Callable
    import numpy as np

    try:
        np.cast  # noqa: B018 - downhill's Adam: np.cast['float32'](0), gone in NumPy 2
    except AttributeError:
        class _Cast(dict):
            def __missing__(self, dtype):
                return lambda value: np.asarray(value, dtype=dtype)

        np.cast = _Cast()
    try:
        import climate
        usable = hasattr(climate, "get_logger")
    except ImportError:
        usable = False
    if not usable:  # theanets only calls climate.get_logger(__name__)
        stub = types.ModuleType("climate")
        stub.get_logger = logging.getLogger
        sys.modules["climate"] = stub


def main(cases: dict[str, Callable[[], list]], library: str) -> None:
    """Run the cases named on the command line (all by default); print and maybe record."""
    argv = sys.argv[1:]
    names = [a for a in argv if not a.startswith("--")] or list(cases)
    results = {name: [float(v) for v in cases[name]()] for name in names}
    if "--record" in argv:
        with open(os.path.join(HERE, "expected", f"{library}.json"), "w") as out:
            json.dump(results, out, indent=1, sort_keys=True)
            out.write("\n")
    print(json.dumps(results))


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def check(program: str, library: str, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Run ``program`` on jitgraph and compare every case with the recorded Theano values;
    a scan loop that fell back to step-by-step (its native loop refused) fails too."""
    import numpy as np

    env = dict(os.environ, JITGRAPH_AS_THEANO="1")
    run = subprocess.run([sys.executable, os.path.join(HERE, program)], capture_output=True,
                         text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "did not compile" not in run.stderr, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    with open(os.path.join(HERE, "expected", f"{library}.json")) as f:
        expected = json.load(f)
    assert sorted(got) == sorted(expected)
    for case, values in expected.items():
        np.testing.assert_allclose(got[case], values, rtol=rtol, atol=atol, err_msg=case)
