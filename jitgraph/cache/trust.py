"""Whose writing jitgraph trusts in the compiledir, which holds code it runs.

The compiledir holds generated modules that jitgraph imports, native objects it maps executable,
pickled rewritten graphs and Numba's cache files: whoever can write there can run code in every
process that uses it. Like ``ssh`` with ``~/.ssh``, jitgraph loads from it only what nobody else
could have written, as the ``compiledir_trust`` flag says:

``owner`` (the default)
    the compiledir (and ``base_compiledir`` around it), each entry and each file loaded is owned
    by you or root and writable by no other user: group-writable is accepted only for your
    private group (a group named after you with no other member, as ``umask 002`` systems give
    every user); the folders above it are owned by you or root and writable by nobody else,
    unless they are sticky like ``/tmp`` (nobody can then rename what is yours). Symbolic links
    inside the compiledir are never followed.
``group``
    a cache shared by a team: entries of any owner and group-writable ones are loaded (every
    member of the group can run code in your process); world-writable folders and files (and
    world-writable parents without the sticky bit) and links are still refused.
``any``
    no check.

The compiledir and its parents are checked once per process (:func:`check_compiledir`, which
raises :class:`UntrustedCompiledir` naming the path and the fix); an entry folder is checked
(``lstat``) when it is looked up, and a file when it is read, on the opened descriptor
(:func:`read_trusted`: ``O_NOFOLLOW`` and ``fstat``, so that what is checked is what is read).
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

from jitgraph.config import config
from jitgraph.config.params import ConfigError
from jitgraph.config.paths import FOLDER_MODES

OWNER, GROUP, ANY = "owner", "group", "any"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: owners and modes are POSIX's: elsewhere (Windows) nothing is checked
_POSIX = hasattr(os, "geteuid")


class UntrustedCompiledir(ConfigError):
    """The compiledir (or a folder above it) could be written by another user."""


class UntrustedFile(OSError):
    """A file or folder inside the compiledir that jitgraph refuses to load (``str`` says why
    and how to fix it)."""


def policy() -> str:
    """The ``compiledir_trust`` flag (``any`` where files have no POSIX owner and mode)."""
    return str(config.get("compiledir_trust")) if _POSIX else ANY


def folder_mode() -> int:
    """The mode new folders get (the umask still applies): private unless the cache is shared."""
    return FOLDER_MODES.get(policy(), 0o700)


def file_mode() -> int:
    """The mode new files get (the umask still applies)."""
    return FOLDER_MODES.get(policy(), 0o700) & 0o666


def _user(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _group(gid: int) -> str:
    try:
        import grp

        return f"{grp.getgrgid(gid).gr_name} (gid {gid})"
    except (ImportError, KeyError):
        return f"gid {gid}"


@functools.lru_cache(maxsize=None)
def _is_private_group(gid: int, uid: int) -> bool:
    """Whether ``gid`` is the user private group of ``uid``: the user's primary group, named
    after the user, with no other member (what ``umask 002`` systems are built on)."""
    try:
        import grp
        import pwd

        user, group = pwd.getpwuid(uid), grp.getgrgid(gid)
    except (ImportError, KeyError):
        return False
    return (user.pw_gid == gid and group.gr_name == user.pw_name
            and all(member == user.pw_name for member in group.gr_mem))


def problem(st: os.stat_result, trust: str | None = None) -> str | None:
    """Why a folder or file inside the compiledir with status ``st`` (from ``lstat`` or
    ``fstat``) may hold what another user wrote, or None when it is trusted."""
    trust = trust or policy()
    if trust == ANY:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link (jitgraph does not follow links inside the compiledir)"
    uid = os.geteuid()
    if trust == OWNER and st.st_uid not in (uid, 0):
        return f"is owned by {_user(st.st_uid)}, not by you ({_user(uid)})"
    return _writable_by_others(st, trust, uid, "")


def _parent_problem(st: os.stat_result, trust: str) -> str | None:
    """:func:`problem` for a folder above the compiledir: root's folders and sticky ones
    (``/tmp``) are fine, since nobody else can rename what is yours in them."""
    if trust == ANY or st.st_mode & stat.S_ISVTX:
        return None
    uid = os.geteuid()
    if trust == OWNER and st.st_uid not in (uid, 0):
        return f"is owned by {_user(st.st_uid)}, not by you or root"
    return _writable_by_others(st, trust, uid, " and not sticky")


def _writable_by_others(st: os.stat_result, trust: str, uid: int, world_note: str) -> str | None:
    """Why another user could write what ``st`` describes (every user; under ``owner`` trust
    also a group that is not the user's private one), or None."""
    mode = stat.S_IMODE(st.st_mode)
    if st.st_mode & stat.S_IWOTH:
        return f"is writable by every user{world_note} (mode {mode:o})"
    if trust == OWNER and st.st_mode & stat.S_IWGRP and not _is_private_group(st.st_gid, uid):
        return f"is writable by the group {_group(st.st_gid)} (mode {mode:o})"
    return None


def fix(path: str | os.PathLike, why: str) -> str:
    """The commands that make ``path`` trusted again, for a message."""
    if why.startswith("is a symbolic link"):
        return f"remove the link: rm {path}"
    if why.startswith("is owned by"):
        return (f"take it over (as root): chown -R $USER {path}; or move it away: "
                f"mv {path} {path}.untrusted")
    if "not sticky" in why:
        return f"chmod o-w {path} (or chmod +t {path}, as /tmp is)"
    return f"chmod go-w {path}"


OPT_IN = ("if you trust every user who can write there (a cache shared by a team), set "
          "compiledir_trust=group (or =any), e.g. JITGRAPH_FLAGS=compiledir_trust=group")


def describe(path: str | os.PathLike, why: str) -> str:
    """One sentence: ``path`` is not loaded, why, and how to fix it or opt in."""
    return f"{path} {why}; it is not loaded. Fix: {fix(path, why)}; or {OPT_IN}"


_checked: set[tuple[str, str]] = set()


def compiledir_problem(path: str | os.PathLike, own: tuple[str | os.PathLike, ...] = ()
                       ) -> str | None:
    """Why another user could have written the compiledir ``path`` (a real path) or could
    replace it, naming the fix, or None. ``own``: the folders above it that jitgraph created
    (``base_compiledir``), held to the compiledir's own rule."""
    trust = policy()
    if trust == ANY:
        return None
    folder = Path(path)
    own_paths = {folder, *(Path(os.path.realpath(p)) for p in own)}
    for current in (folder, *folder.parents):
        try:
            st = os.lstat(current)
        except OSError:
            continue  # not created yet, or vanished meanwhile: reported where it is used
        strict = current in own_paths
        why = problem(st, trust) if strict else _parent_problem(st, trust)
        if why is not None:
            what = "the compiledir" if current == folder else \
                "base_compiledir" if strict else "a folder above the compiledir"
            return (f"{what} {current} {why}, so another user could put code there that "
                    f"jitgraph would run in your process. Fix: {fix(current, why)}; or use a "
                    f"compiledir of your own (JITGRAPH_FLAGS=base_compiledir=~/.jitgraph); "
                    f"or, {OPT_IN}")
    return None


def check_compiledir(path: str | os.PathLike, own: tuple[str | os.PathLike, ...] = ()) -> None:
    """Raise :class:`UntrustedCompiledir` when :func:`compiledir_problem` finds one; checked
    once per process, path and policy."""
    memo = (os.fspath(path), policy())
    if memo in _checked:
        return
    why = compiledir_problem(path, own)
    if why is not None:
        raise UntrustedCompiledir(f"jitgraph refuses to use the compiledir {path}: {why}.")
    _checked.add(memo)


def check_folder(path: Path) -> None:
    """Raise :class:`UntrustedFile` when the folder ``path`` (an entry) is untrusted; a missing
    one raises ``FileNotFoundError``."""
    why = problem(os.lstat(path))
    if why is not None:
        raise UntrustedFile(describe(path, why))


def check_file(path: Path) -> None:
    """:func:`check_folder` for a file handed to another loader by its path (Numba's cache
    files, a cubin): checked with ``lstat`` in a folder already checked."""
    check_folder(path)


def read_trusted(path: str | os.PathLike) -> bytes:
    """The bytes of ``path``, refused (:class:`UntrustedFile`) when it is a link or another user
    could have written it; checked on the opened descriptor, so that what is checked is what is
    read."""
    nofollow = _NOFOLLOW if policy() != ANY else 0
    try:
        fd = os.open(path, os.O_RDONLY | nofollow)
    except OSError as exc:
        if nofollow and os.path.islink(path):
            raise UntrustedFile(describe(path, problem(os.lstat(path), OWNER) or "")) from exc
        raise
    try:
        st = os.fstat(fd)
        why = problem(st)
        if why is None and not stat.S_ISREG(st.st_mode):
            why = "is not a regular file"
        if why is not None:
            raise UntrustedFile(describe(path, why))
        chunks = []
        while True:  # one read for a regular file, and one more that finds its end
            chunk = os.read(fd, max(st.st_size, 1 << 16))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)
