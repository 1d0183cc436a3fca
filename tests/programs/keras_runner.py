"""Running a Keras script section with ``theano`` meaning jitgraph, in a fresh process (Keras
binds its backend at import), for ``test_keras.py`` and ``test_keras_more.py``."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent


def keras_version() -> str | None:
    if importlib.util.find_spec("keras") is None:
        return None
    from importlib.metadata import version

    return version("keras")


KERAS_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(keras_version() != "2.3.1",
                       reason="needs keras==2.3.1 (the test extra installs it), the last Keras "
                              "with a Theano backend"),
]


def run_section(script: str, section: str, extra_env: dict | None = None) -> dict:
    """The JSON results ``script`` prints for ``section`` under jitgraph (``extra_env`` added
    to the environment)."""
    env = dict(os.environ, JITGRAPH_AS_THEANO="1", KERAS_BACKEND="theano", **(extra_env or {}))
    run = subprocess.run([sys.executable, str(HERE / script), section],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])[section]


def assert_close(got: list, expected: list, case: str) -> None:
    # float32 models: sums and batch statistics round differently from Theano's C code
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6, err_msg=case)
