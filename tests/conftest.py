"""Test-session settings shared by the whole suite."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# One compiledir for the whole test session (and the processes it starts): Numba kernels are
# compiled once per machine, not once per test. Set before jitgraph.config is first imported.
_TEST_CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           ".jitgraph-test-cache")
if "base_compiledir" not in os.environ.get("JITGRAPH_FLAGS", ""):
    _flags = os.environ.get("JITGRAPH_FLAGS", "")
    os.environ["JITGRAPH_FLAGS"] = f"{_flags},base_compiledir={_TEST_CACHE}".lstrip(",")

# Graph building is slowish per example and timing varies on a 2-core CI machine: no deadlines.
settings.register_profile("jitgraph", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=25,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "jitgraph")


import pytest


@pytest.fixture
def jitgraph_rewrites_only(monkeypatch):
    """For graph-cache tests: forget that an earlier test in this process registered rewrites
    of its own (which turns the graph cache off for the rest of the process, as it should)."""
    from jitgraph.rewrite import db

    monkeypatch.setattr(db, "changed_outside_jitgraph", False)
