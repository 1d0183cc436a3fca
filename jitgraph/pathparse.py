"""``theano.pathparse``: :class:`PathParser`, which adds folders to this process's ``PATH``."""

from __future__ import annotations

import os
import sys


class PathParser:
    """``PathParser(dir1, dir2, ...)`` rewrites ``os.environ['PATH']`` as the sorted set of
    its folders plus the given ones (absolute, lower-cased on Windows); ``add(dir)`` adds one
    more. The set is shared by every instance, as in Theano."""

    paths: set[str] = set()

    def __init__(self, *paths: str) -> None:
        for path in os.environ.get("PATH", "").split(os.pathsep):
            self._add(path)
        for path in paths:
            self._add(path)
        self._update()

    def _add(self, path: str) -> None:
        path = path.strip()
        if path:
            if sys.platform == "win32":  # Windows paths ignore case
                path = path.lower()
            self.paths.add(os.path.abspath(path))

    def _update(self) -> None:
        os.environ["PATH"] = os.pathsep.join(sorted(self.paths))

    def add(self, path: str) -> None:
        """Add ``path`` and update ``PATH``."""
        self._add(path)
        self._update()

    def _debug(self) -> None:
        for path in sorted(self.paths):
            print(path)


__all__ = ["PathParser"]
