"""Classic Theano training programs run unchanged on jitgraph (``import theano`` names
jitgraph while they run) and compute what Theano 1.0.5 computed: the numbers in
``expected/<program>.json`` were recorded by running the same files under the real Theano
(``record_theano.py``)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import pathlib
import sys

import numpy as np
import pytest

from jitgraph.theano_compat import theano_is_jitgraph

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = ["logistic_sgd", "mlp", "autoencoders", "logistic_cg"]


def run_program(name: str) -> tuple[dict, str]:
    """Import ``name`` from this folder with ``theano`` meaning jitgraph and run its main()."""
    out = io.StringIO()
    # the programs import each other as the tutorials did (``from mlp import HiddenLayer``):
    # every module of this folder that the run imports is forgotten afterwards, since its
    # ``theano`` was jitgraph
    before = set(sys.modules)
    try:
        with theano_is_jitgraph(), contextlib.redirect_stdout(out):
            spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            # registered so that pickle finds the program's classes (logistic_sgd pickles its
            # model), as it would find them in a script's __main__
            sys.modules[name] = module
            spec.loader.exec_module(module)
            results = module.main()
    finally:
        for module_name in set(sys.modules) - before:
            if pathlib.Path(getattr(sys.modules[module_name], "__file__", None) or "/").parent \
                    == HERE:
                del sys.modules[module_name]
        sys.modules.pop(name, None)
    return results, out.getvalue()


def assert_same_results(got, expected, where: str = "", rtol: float = 1e-6,
                        atol: float = 1e-12) -> None:
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for key in expected:
            assert_same_results(got[key], expected[key], f"{where}.{key}", rtol, atol)
    elif isinstance(expected, int) and not isinstance(expected, bool) \
            or isinstance(expected, str) \
            or isinstance(expected, list) and expected and isinstance(expected[0], str):
        assert got == expected, where
    else:
        np.testing.assert_allclose(np.asarray(got, dtype="float64"),
                                   np.asarray(expected, dtype="float64"),
                                   rtol=rtol, atol=atol, err_msg=where)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_theano(name):
    if name == "logistic_cg":
        pytest.importorskip("scipy.optimize")
    expected = json.loads((HERE / "expected" / f"{name}.json").read_text())
    results, printed = run_program(name)
    assert_same_results(results, expected, name)
    assert printed.strip(), "the program reports its progress"


def test_theano_names_are_forgotten_afterwards():
    run_program("logistic_sgd")
    assert "theano" not in sys.modules or not sys.modules["theano"].__name__.startswith(
        "jitgraph")
    import jitgraph.tensor

    assert jitgraph.tensor.__spec__.name == "jitgraph.tensor"
