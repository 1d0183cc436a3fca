"""The OS file lock under the compile locks: exclusive between instances (as between
processes), released on release and on death, and never held on a deleted lock file."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from jitgraph.cache import oslock

pytestmark = pytest.mark.skipif(oslock.fcntl is None, reason="flock: POSIX only")


def test_two_instances_exclude_each_other(tmp_path):
    path = str(tmp_path / "k.lock")
    first, second = oslock.file_lock(path), oslock.file_lock(path)
    assert first.acquire(1.0, 0.001)
    t0 = time.monotonic()
    assert not second.acquire(0.05, 0.001)
    assert time.monotonic() - t0 >= 0.05
    first.release()
    assert second.acquire(0.0, 0.001)
    second.release()


def test_a_lock_file_deleted_while_held_is_not_trusted(tmp_path):
    # A waiter taking over a stuck lock deletes its file; the next taker locks a new file,
    # and a lock taken on the deleted file is not counted as held.
    path = tmp_path / "k.lock"
    stuck = oslock.file_lock(str(path))
    assert stuck.acquire(1.0, 0.001)
    path.unlink()
    taker = oslock.file_lock(str(path))
    assert taker.acquire(0.0, 0.001) and path.exists()
    third = oslock.file_lock(str(path))
    assert not third.acquire(0.0, 0.001)
    stuck.release()
    assert not third.acquire(0.0, 0.001)  # the new file is still the taker's
    taker.release()
    assert third.acquire(0.0, 0.001)
    third.release()


def test_the_lock_of_a_dead_process_is_free(tmp_path):
    path = str(tmp_path / "k.lock")
    child = textwrap.dedent(f'''
        import os
        from jitgraph.cache import oslock
        lock = oslock.file_lock({path!r})
        assert lock.acquire(1.0, 0.001)
        print("held", flush=True)
        os._exit(0)
    ''')
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.strip() == "held", proc.stderr
    lock = oslock.file_lock(path)
    assert lock.acquire(0.0, 0.001)
    lock.release()
