"""Faults lose nothing (issue 29, part 3): a full disk, a read-only compiledir, a compiledir
removed under a running process, Ctrl-C in the middle of a compile and locks of processes that
died elsewhere leave programs running and the cache usable. (SIGKILL while publishing and
corrupt entries: ``test_cache.py``; sixteen processes on one empty compiledir:
``test_cache_many_processes.py``.)"""

from __future__ import annotations

import errno
import os
import threading
import time
import warnings

import pytest

from child_runs import compiledir_in, entries_in, run, snapshot

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"),
                                reason="the simulated faults find paths through /proc")


def _half_written(base) -> list[str]:
    return [path for path in snapshot(base) if "tmp-" in path or path.endswith(".tmp")]


def test_disk_full_while_publishing_runs_from_memory_with_one_warning(tmp_path):
    base = tmp_path / "base"
    full = run(base, "f,g", fault="enospc")
    (warning,) = full["warnings"]
    assert "ENOSPC" in warning and "kept in memory" in warning
    assert full["results"].keys() == {"f", "g"}
    assert entries_in(base) == [] and _half_written(base) == []
    assert not list(compiledir_in(base).rglob("*.pkl"))
    # once there is room again, the same compiledir caches as usual
    roomy = run(base, "f")
    assert roomy["misses"] >= 1 and not roomy["warnings"] and entries_in(base)


@pytest.mark.parametrize("failing", ["fsync", "rename"])
def test_publish_failing_at_its_last_steps_leaves_nothing(tmp_path, monkeypatch, failing):
    """The key's fsync and the rename into place are the last steps of a publish: failing
    there (a full disk) leaves no folder behind, and open_module warns once and gives None."""
    from jitgraph.cache import metadata, store
    from jitgraph.cache.keys import make_key
    from jitgraph.cache.modules import open_module

    monkeypatch.setattr(store, "_unwritable", [])

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, failing, full)
    key = make_key(("fault-test", failing))
    info = metadata.cpu_kernel("a fault test", "test")
    with pytest.raises(OSError):
        store.publish(key, {"mod.py": "x = 1\n"}, info, tmp_path)
    assert list(tmp_path.iterdir()) == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert open_module(key, "x = 1\n", info, tmp_path) is None
        assert open_module(make_key(("fault-test", "other")), "x = 2\n", info, tmp_path) is None
    assert [str(w.message) for w in caught].count(str(caught[0].message)) == len(caught) == 1
    assert "ENOSPC" in str(caught[0].message)
    assert list(tmp_path.iterdir()) == []


def test_read_only_compiledir_loads_what_is_there_and_compiles_the_rest_in_memory(tmp_path):
    base = tmp_path / "base"
    run(base, "f")
    before = snapshot(base)
    read_only = run(base, "f,g", fault="erofs")
    (warning,) = read_only["warnings"]
    assert "EROFS" in warning and "kept in memory" in warning
    assert read_only["hits"] >= 1  # f's kernels were loaded
    assert snapshot(base) == before  # nothing written, nothing touched


def test_compiledir_removed_between_two_compiles(tmp_path):
    base = tmp_path / "base"
    gone = run(base, "f,rmtree,g,f")
    assert gone["results"].keys() == {"f", "g"} and not gone["warnings"]
    assert entries_in(base)  # recreated for g
    assert _half_written(base) == []
    again = run(base, "g")
    assert again["hits"] >= 1 and not again["warnings"]


def test_ctrl_c_in_the_middle_of_a_compile_leaves_a_usable_cache(tmp_path):
    base = tmp_path / "base"
    interrupted = run(base, "interrupt:f,f")
    assert interrupted["interrupted"] == ["f"]
    assert interrupted["locks_left"] == []  # no owner file of a lock still claimed
    assert not interrupted["warnings"] and "waiting for the compile lock" not in \
        interrupted["stderr"]
    assert _half_written(base) == []
    later = run(base, "f")
    assert later["misses"] == 0 and later["hits"] >= 1 and not later["warnings"]


def _hold(lock_path):
    """The OS lock of ``lock_path`` held from another descriptor, as a network filesystem may
    keep showing the lock of a host that died."""
    from filelock import FileLock

    held = FileLock(str(lock_path), is_singleton=False)
    held.acquire()
    return held


def test_lock_of_a_dead_process_on_another_host_is_broken_after_the_timeout(tmp_path, capsys):
    from jitgraph.cache.locking import ModuleLock

    held = _hold(tmp_path / "k.lock")
    (tmp_path / "k.owner").write_text(f"4242\nother-host.example\nabc\n{time.time() - 3600}\n")
    start = time.monotonic()
    with ModuleLock(tmp_path, "k", timeout=1, wait=0.05) as lock:
        waited = time.monotonic() - start
        assert lock.took_over
    held.release()
    # no clock of another host is trusted: the waiter itself saw no refresh for the timeout
    assert 1.0 <= waited < 10
    err = capsys.readouterr().err
    assert "process 4242 on other-host.example" in err and "has not refreshed" in err


def test_lock_of_a_live_process_on_another_host_is_waited_for(tmp_path):
    from jitgraph.cache.locking import ModuleLock

    owner = tmp_path / "k.owner"
    holding = threading.Event()

    def remote_holder() -> None:  # takes the lock, refreshes its owner file, then finishes
        held = _hold(tmp_path / "k.lock")  # filelock's locks belong to the thread taking them
        stop = time.monotonic() + 2.5
        while time.monotonic() < stop:
            owner.write_text(f"4242\nother-host.example\nabc\n{time.time()}\n")
            holding.set()
            time.sleep(0.2)
        held.release()

    thread = threading.Thread(target=remote_holder)
    thread.start()
    holding.wait()
    with ModuleLock(tmp_path, "k", timeout=1, wait=0.05, quiet=True) as lock:
        assert not lock.took_over and lock.waited >= 2.0
    thread.join()


def test_lock_of_a_dead_process_on_this_host_is_broken_at_once(tmp_path):
    from jitgraph.cache.locking import ModuleLock, hostname

    held = _hold(tmp_path / "k.lock")
    (tmp_path / "k.owner").write_text(f"999999999\n{hostname()}\nabc\n{time.time()}\n")
    with ModuleLock(tmp_path, "k", timeout=600, wait=0.05, quiet=True) as lock:
        assert lock.took_over and lock.waited < 5
    held.release()


def test_a_file_where_an_entry_belongs_is_moved_aside(tmp_path, monkeypatch):
    from jitgraph.cache import metadata, store
    from jitgraph.cache.keys import make_key
    from jitgraph.cache.modules import open_module

    monkeypatch.setattr(store, "_unwritable", [])
    key = make_key(("fault-test", "a file in the way"))
    store.entry_path(key, tmp_path).write_text("not an entry")
    with pytest.warns(store.CacheWarning, match="it is not a folder"):
        cached = open_module(key, "x = 1\n", metadata.cpu_kernel("t", "test"), tmp_path)
    assert cached is not None and cached.entry.path.is_dir() and store.writable()
