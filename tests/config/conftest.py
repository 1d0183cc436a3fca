"""Fixtures for the config tests: isolated environments and a Python subprocess runner.

Every test builds its own ``Config`` from an explicit environment, or runs a fresh interpreter
whose HOME is an empty temporary folder and from whose environment the jitgraph/Theano variables
are removed, so the developer's own ``~/.theanorc`` or ``THEANO_FLAGS`` never leak in.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("jitgraph") is None:  # plain `pytest` without an install
    sys.path.insert(0, str(REPO))

from jitgraph.config import Config, build_config  # noqa: E402

CONFIG_ENV_VARS = ("THEANO_FLAGS", "JITGRAPH_FLAGS", "THEANORC", "JITGRAPHRC", "OMP_NUM_THREADS")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty folder used as HOME."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def make_config(home: Path) -> Callable[..., Config]:
    """``make_config(THEANO_FLAGS=..., ...)`` builds a Config from HOME plus those variables."""

    def make(**env: str) -> Config:
        return build_config({"HOME": str(home), "USER": "tester", **env})

    return make


def _clean_env(home: Path, extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_ENV_VARS}
    env["HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.pop("PYTHONWARNINGS", None)
    env.update(extra or {})
    return env


@pytest.fixture
def run_py(home: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_py(code, env={...}, args=[...])`` runs ``python -c code`` (or ``python args``) in a
    clean environment with HOME=home; returns the CompletedProcess (text stdout/stderr)."""

    def run(code: str | None = None, env: dict[str, str] | None = None,
            args: list[str] | None = None) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, *(args if args is not None else ["-c", code or ""])]
        return subprocess.run(
            argv, env=_clean_env(home, env), cwd=str(home), capture_output=True, text=True,
            timeout=120,
        )

    return run
