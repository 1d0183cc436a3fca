"""``python -m jitgraph.backend_gpu.selfcheck``, the one-shot check for real hardware: without a
usable GPU (this machine, or only the emulated device) it says why and exits with status 2;
its per-file test rows and its table work (shown on the emulated device)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jitgraph.backend_gpu import selfcheck

from gpu_testing import ROOT, device_env


def _selfcheck(env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    full = {**os.environ, **(env or {})}
    full["PYTHONPATH"] = os.pathsep.join([full.get("PYTHONPATH", ""), str(ROOT)]).strip(os.pathsep)
    return subprocess.run([sys.executable, "-m", "jitgraph.backend_gpu.selfcheck"],
                          cwd=str(ROOT), env=full, capture_output=True, text=True, timeout=120)


def test_without_a_gpu_it_says_why_and_fails():
    from jitgraph.backend_gpu.device import status

    ok, why = status(0)
    if ok:
        pytest.skip("a GPU is usable here: the self-check would run for minutes")
    run = _selfcheck()
    assert run.returncode == selfcheck.NO_GPU
    assert "no GPU is usable here" in run.stderr and why in run.stderr
    assert "Nothing was checked" in run.stderr


def test_the_emulated_device_is_not_taken_for_a_gpu():
    run = _selfcheck(device_env())
    assert run.returncode == selfcheck.NO_GPU
    assert "emulated CUDA device" in run.stderr, run.stderr


@pytest.mark.gpu
def test_test_rows_count_launches_and_the_table_shows_them():
    rows = selfcheck.run_tests(300, ("tests/backend_gpu/test_gpu_random.py",), real_gpu=False)
    assert [r["check"] for r in rows] == ["tests/backend_gpu/test_gpu_random.py"]
    (row,) = rows
    assert row["ok"] and row["result"] == "2 passed, 0 failed, 0 skipped", row
    assert row["launches"] >= 9  # three draws a call, three calls, plus the CPU-target test
    text = selfcheck.table(rows + [{"check": "program x", "ok": False, "result": "r",
                                    "launches": 3, "gpu_s": 2.0, "cpu_s": 1.0}])
    assert "test_gpu_random.py" in text and "2 passed" in text
    assert "NO" in text and "2.00" in text
