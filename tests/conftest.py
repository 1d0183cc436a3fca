"""Test-session settings shared by the whole suite."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Graph building is slowish per example and timing varies on a 2-core CI machine: no deadlines.
settings.register_profile("jitgraph", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=25,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "jitgraph")
