"""The compiledir holds code: jitgraph refuses (naming the path and the fix) what another user
could have written, unless ``compiledir_trust`` says that user is trusted (issue 29, part 2)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from child_runs import compiledir_in, entries_in, run
from compiledir_testing import cli

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")

OTHER_UID, OTHER_GID = 12345, 12345  # nobody on this machine


def _chown_tree(folder: Path, uid: int = -1, gid: int = -1) -> None:
    os.chown(folder, uid, gid, follow_symlinks=False)
    for path, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.chown(os.path.join(path, name), uid, gid, follow_symlinks=False)


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> Path:
    """A base_compiledir where f was compiled (never changed: tests copy it)."""
    base = tmp_path_factory.mktemp("trusted") / "base"
    first = run(base, "f")
    assert first["misses"] >= 1 and not first["warnings"]
    return base


def _copy(filled: Path, tmp_path: Path) -> Path:
    base = tmp_path / "base"
    shutil.copytree(filled, base, symlinks=True)
    return base


def test_new_folders_and_files_are_private(filled):
    compiledir = compiledir_in(filled)
    for folder in (filled, compiledir, *entries_in(filled)):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    for entry in entries_in(filled):
        for path in entry.iterdir():
            if path.is_file():
                assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


def test_world_writable_base_compiledir_is_refused_with_the_fix(tmp_path, monkeypatch):
    base = tmp_path / "shared"
    base.mkdir()
    base.chmod(0o777)
    refused = run(base, "f", check=False)
    assert refused["returncode"] != 0
    message = refused["stderr"]
    assert "UntrustedCompiledir" in message and f"{base} is writable by every user" in message
    assert f"chmod go-w {base}" in message and "compiledir_trust=group" in message
    # the opt-in: every user who can write it is trusted
    assert run(base, "f", flags="compiledir_trust=any")["results"]
    # group trust still refuses what every user can write
    from jitgraph.cache import trust

    (compiledir,) = base.glob("compiledir_*")
    monkeypatch.setattr(trust, "policy", lambda: trust.GROUP)
    assert "writable by every user" in trust.compiledir_problem(compiledir, (base,))


def test_parents_sticky_like_tmp_are_fine_but_not_plain_world_writable(tmp_path, monkeypatch):
    from jitgraph.cache import trust

    monkeypatch.setattr(trust, "policy", lambda: trust.OWNER)
    parent = tmp_path / "parent"
    compiledir = parent / "base" / "compiledir_x"
    compiledir.mkdir(parents=True, mode=0o700)
    (parent / "base").chmod(0o700)
    parent.chmod(0o1777)  # as /tmp
    assert trust.compiledir_problem(compiledir, (parent / "base",)) is None
    parent.chmod(0o777)
    why = trust.compiledir_problem(compiledir, (parent / "base",))
    assert why and "a folder above the compiledir" in why and "not sticky" in why
    assert f"chmod o-w {parent}" in why
    parent.chmod(0o755)
    compiledir.chmod(0o770)
    os.chown(compiledir, -1, OTHER_GID)  # a group that is not the user's private one
    why = trust.compiledir_problem(compiledir, (parent / "base",))
    assert why and f"the compiledir {compiledir} is writable by the group" in why


def test_group_writable_is_fine_for_the_users_private_group(tmp_path):
    import grp
    import pwd

    from jitgraph.cache import trust

    user = pwd.getpwuid(os.geteuid())
    group = grp.getgrgid(user.pw_gid)
    if group.gr_name != user.pw_name or set(group.gr_mem) - {user.pw_name}:
        pytest.skip(f"{user.pw_name}'s primary group is not a user private group")
    path = tmp_path / "file"
    path.write_bytes(b"x")
    os.chown(path, -1, user.pw_gid)
    path.chmod(0o664)
    assert trust.problem(os.lstat(path), trust.OWNER) is None
    os.chown(path, -1, OTHER_GID)
    assert "writable by the group" in trust.problem(os.lstat(path), trust.OWNER)
    assert trust.problem(os.lstat(path), trust.GROUP) is None
    path.chmod(0o666)
    assert "writable by every user" in trust.problem(os.lstat(path), trust.GROUP)


def _warned(report: dict, *words: str) -> str:
    (warning,) = report["warnings"]
    for word in words:
        assert word in warning, warning
    return warning


def test_entry_owned_by_another_user_is_refused_then_loaded_when_trusted(filled, tmp_path):
    base = _copy(filled, tmp_path)
    entry = entries_in(base)[0]
    _chown_tree(entry, OTHER_UID)
    trusting = run(base, "f", flags="compiledir_trust=group")
    assert trusting["misses"] == 0 and trusting["hits"] >= 1 and not trusting["warnings"]
    refused = run(base, "f")
    _warned(refused, str(entry), f"is owned by uid {OTHER_UID}", "chown", "compiledir_trust")
    assert refused["misses"] >= 1  # rebuilt, as one's own
    assert entry.stat().st_uid == os.geteuid()
    quarantined = list((compiledir_in(base) / "quarantine").iterdir())
    assert [p.stat().st_uid for p in quarantined] == [OTHER_UID]


def test_group_writable_file_is_refused_then_loaded_when_trusted(filled, tmp_path):
    base = _copy(filled, tmp_path)
    (obj,) = [o for e in entries_in(base) for o in e.glob("native-*.o")][:1]
    os.chown(obj, -1, OTHER_GID)
    obj.chmod(0o660)
    assert run(base, "f", flags="compiledir_trust=group")["misses"] == 0
    refused = run(base, "f")
    _warned(refused, f"{obj} is writable by the group gid {OTHER_GID}", f"chmod go-w {obj}")
    assert refused["misses"] == 1
    assert stat.S_IMODE(obj.stat().st_mode) & 0o077 == 0  # rebuilt as one's own


def test_symlinks_in_the_compiledir_are_not_followed(filled, tmp_path):
    base = _copy(filled, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    entry, *_ = entries_in(base)
    (obj,) = entry.glob("native-*.o")
    shutil.move(obj, elsewhere / obj.name)
    obj.symlink_to(elsewhere / obj.name)
    assert run(base, "f", flags="compiledir_trust=any")["misses"] == 0  # no check at all
    refused = run(base, "f")
    _warned(refused, f"{obj} is a symbolic link", f"rm {obj}")
    assert refused["misses"] == 1 and not obj.is_symlink()
    # a whole entry that is a link to a folder elsewhere
    shutil.move(entry, elsewhere / entry.name)
    entry.symlink_to(elsewhere / entry.name)
    refused = run(base, "f")
    _warned(refused, f"{entry} is a symbolic link")
    assert not entry.is_symlink() and entry.is_dir()


def test_untrusted_rewritten_graph_is_not_unpickled(tmp_path):
    base = tmp_path / "base"  # not a copy: the flags (base_compiledir) key the graphs
    run(base, "f")
    (graph,) = (compiledir_in(base) / "graphs").glob("g*.pkl")
    os.chown(graph, OTHER_UID, -1)
    refused = run(base, "f")
    _warned(refused, f"rewritten graph {graph}", f"is owned by uid {OTHER_UID}")
    assert graph.stat().st_uid == os.geteuid()  # stored again


def test_jitgraph_cache_reports_untrusted_items(filled, tmp_path, monkeypatch):
    from jitgraph.cache import trust

    monkeypatch.setattr(trust, "policy", lambda: trust.OWNER)
    base = _copy(filled, tmp_path)
    compiledir = compiledir_in(base)
    entry = entries_in(base)[0]
    _chown_tree(entry, OTHER_UID)
    status, out = cli("--compiledir", str(compiledir), "list")
    assert status == 0
    assert "not loaded: writable by, or owned by, another user" in out
    assert f"is owned by uid {OTHER_UID}" in out and entry.name in out
    compiledir.chmod(0o777)
    status, out = cli("--compiledir", str(compiledir), "stats")
    assert f"the compiledir {compiledir} is writable by every user" in out


def test_gpu_module_of_another_user_is_not_loaded(tmp_path, monkeypatch):
    from jitgraph.backend_gpu.nvrtc import available

    if not available()[0]:
        pytest.skip("NVRTC is not installed")
    from jitgraph.backend_gpu import kernels
    from jitgraph.cache.store import CacheWarning
    from jitgraph.config import paths

    monkeypatch.setattr(paths, "ensure_compiledir", lambda cfg=None: str(tmp_path))
    source = kernels.CudaSource(("trust-test", "scale"), 'extern "C" __global__ void '
                                "scale(double* y) { y[0] *= 2.0; }", ("scale",), "scale by 2")
    first = kernels.compile_source(source, "sm_90", ())
    assert not first.cached
    os.chown(first.cubin_path, OTHER_UID, -1)
    with pytest.warns(CacheWarning, match=f"mod.cubin is owned by uid {OTHER_UID}"):
        again = kernels.compile_source(source, "sm_90", ())
    assert not again.cached and again.cubin_path.stat().st_uid == os.geteuid()
    assert kernels.compile_source(source, "sm_90", ()).cached


def test_what_is_written_is_trusted_whatever_the_umask(tmp_path):
    """With ``umask 002`` (group-writable by default), Numba's cache files, which Numba writes
    itself, and everything else jitgraph writes still come out writable by the owner only."""
    import subprocess
    import sys

    from test_cache import CHILD, env_for

    code = "import os\nos.umask(0o002)\n" + CHILD
    proc = subprocess.run([sys.executable, "-c", code, "2.0"], env=env_for(tmp_path),
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    (compiledir,) = tmp_path.glob("compiledir_*")
    written = [p for p in tmp_path.rglob("*") if "lock_dir" not in p.parts]
    assert any(p.suffix == ".nbc" for p in written)
    assert [p for p in written if p.lstat().st_mode & 0o022] == []
