"""Deleting from the compiledir (``jitgraph-cache cleanup`` and ``clear``), from what
:func:`jitgraph.cache.survey.survey` read.

What could not be read is never deleted, except damaged items of jitgraph's own under
``cleanup(unreadable=True)``; jitgraph's leftovers are (quarantined entries, and files or folders
being published that are a day old). Links are never followed nor deleted, and nothing outside
the compiledir is touched.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from jitgraph.cache.metadata import GRAPH
from jitgraph.cache.store import GRAPHS, QUARANTINE, WEEK
from jitgraph.cache.survey import DAMAGED, PARTIAL, QUARANTINED, Problem, Survey, survey
from jitgraph.config import config

DAY = 24 * 3600


@dataclass
class Removed:
    """What a cleanup or clear deleted, and what it found but left."""

    entries: int = 0
    graphs: int = 0
    tmp: int = 0
    quarantine: int = 0
    damaged: int = 0
    #: what could not be read and was deleted (quarantined, half-published, damaged)
    deleted: list[Problem] = field(default_factory=list)
    #: what could not be read and is still there
    left: list[Problem] = field(default_factory=list)
    found: Survey | None = None


def cleanup(root: Path, now: float | None = None, unreadable: bool = False) -> Removed:
    """Delete entries and graphs unused for ``cmodule.age_thresh_use`` plus a week, quarantined
    entries, half-published items older than a day, and (``unreadable``) the damaged items of
    jitgraph's own that could not be read."""
    now = time.time() if now is None else now
    limit = config.cmodule.age_thresh_use + WEEK
    found = survey(root)
    removed = Removed(found=found)
    _remove_readable(root, [r for r in found.records if now - r.last_use > limit], removed)
    for problem in found.problems:
        if problem.category == QUARANTINED and problem.remove:
            removed.quarantine += 1
        elif problem.category == PARTIAL and problem.remove \
                and now - _mtime(problem.path, now) > DAY:
            removed.tmp += 1
        elif problem.category == DAMAGED and unreadable and problem.remove:
            removed.damaged += 1
        else:
            removed.left.append(problem)
            continue
        _delete(root, *problem.remove)
        removed.deleted.append(problem)
    return removed


def _remove_readable(root: Path, records: list, removed: Removed) -> None:
    """Delete the readable ``records`` (entries and graphs), counting them in ``removed``."""
    for record in records:
        if record.readable:
            _remove_record(root, record.path, record.kind)
            if record.kind == GRAPH:
                removed.graphs += 1
            else:
                removed.entries += 1


def clear(root: Path) -> Removed:
    """Delete every entry and rewritten graph that could be read, every quarantined entry and
    half-published item; what could not be read stays (and is listed in ``left``)."""
    found = survey(root)
    removed = Removed(found=found)
    _remove_readable(root, found.records, removed)
    for problem in found.problems:
        if problem.category in (QUARANTINED, PARTIAL) and problem.remove:
            _delete(root, *problem.remove)
            removed.quarantine += problem.category == QUARANTINED
            removed.tmp += problem.category == PARTIAL
            removed.deleted.append(problem)
        else:
            removed.left.append(problem)
    for folder in (root / GRAPHS, root / QUARANTINE):
        try:
            folder.rmdir()  # only when empty
        except OSError:
            pass
    return removed


def _remove_record(root: Path, path: Path, kind: str) -> None:
    if kind == GRAPH:  # the pickle and its description (a file: anything else is not one)
        doc = path.with_suffix(".json")
        _delete(root, path, *([doc] if os.path.isfile(doc) and not os.path.islink(doc) else []))
    else:
        _delete(root, path)


def _delete(root: Path, *paths: Path) -> None:
    """Delete ``paths`` (files or folders inside ``root``) without following any link."""
    for path in paths:
        if os.path.commonpath([os.path.abspath(root), os.path.abspath(path)]) \
                != os.path.abspath(root):
            continue
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            shutil.rmtree(path, ignore_errors=True)  # removes links inside, never their targets
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def _mtime(path: Path, default: float) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return default
