"""The host CPU's LLVM name and features, remembered in the compiledir (``jitgraph.cache.host``)."""

from __future__ import annotations

import importlib
import platform

import pytest

from jitgraph.cache import host


@pytest.fixture
def memo_dir(tmp_path, monkeypatch):
    paths = importlib.import_module("jitgraph.config.paths")
    monkeypatch.setattr(paths, "ensure_compiledir", lambda cfg=None: str(tmp_path))
    host.cpu_target.cache_clear()
    yield tmp_path
    host.cpu_target.cache_clear()


def test_remembered_answer_equals_llvms(memo_dir):
    import llvmlite.binding as llvm

    expected = (llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())
    assert host.cpu_target() == expected
    if host.fingerprint() is None:
        pytest.skip("no /proc/cpuinfo: LLVM is asked every time")
    (memo,) = memo_dir.glob(f"{host.MEMO_PREFIX}*")
    assert memo.read_text() == f"{expected[0]}\n{expected[1]}\n"
    host.cpu_target.cache_clear()
    assert host.cpu_target() == expected


@pytest.mark.parametrize("content", ["", "garbage", "only-a-name\n", "a\nb\nc\nd"])
def test_damaged_memo_is_ignored_and_rewritten(memo_dir, content):
    if host.fingerprint() is None:
        pytest.skip("no /proc/cpuinfo")
    memo = memo_dir / f"{host.MEMO_PREFIX}{host.fingerprint()}"
    memo.write_text(content)
    name, features = host.cpu_target()
    assert name and name != "garbage"
    assert memo.read_text() == f"{name}\n{features}\n"


def test_fingerprint_is_stable():
    assert host.fingerprint() == host.fingerprint()


def test_platform_string_matches_the_standard_library():
    paths = importlib.import_module("jitgraph.config.paths")
    processor = platform.processor()
    if processor and processor != platform.machine():
        pytest.skip("this system's `uname -p` names a processor platform.platform() shows")
    assert paths.platform_string() == platform.platform()
