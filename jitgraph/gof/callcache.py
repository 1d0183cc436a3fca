"""``theano.gof.callcache``: :class:`CallCache`, results of calls kept by their arguments and
optionally saved to a pickle file."""

from __future__ import annotations

import logging
import pickle
from typing import Any, Callable

_logger = logging.getLogger("jitgraph.gof.callcache")


class CallCache:
    """``call(fn, args=(), key=None)`` returns ``fn(*args)``, computed once per ``key``
    (``(fn, args)`` by default). With a ``filename`` the cache is loaded from it (when it can
    be read) and ``persist()`` writes it back."""

    def __init__(self, filename: str | None = None) -> None:
        self.filename = filename
        self.cache: dict[Any, Any] = {}
        if filename is not None:
            try:
                with open(filename, "rb") as f:
                    self.cache = pickle.load(f)
            except (OSError, EOFError, pickle.UnpicklingError):
                self.cache = {}

    def persist(self, filename: str | None = None) -> None:
        """Write the cache to ``filename`` (default: the file given at creation)."""
        filename = self.filename if filename is None else filename
        if filename is None:
            raise ValueError("CallCache.persist: no file name was given, here or at creation")
        with open(filename, "wb") as f:
            pickle.dump(self.cache, f)

    def call(self, fn: Callable[..., Any], args: tuple = (), key: Any = None) -> Any:
        key = (fn, tuple(args)) if key is None else key
        if key not in self.cache:
            _logger.debug("cache miss %d", len(self.cache))
            self.cache[key] = fn(*args)
        return self.cache[key]

    def __del__(self) -> None:
        try:
            if self.filename:
                self.persist()
        except Exception:  # noqa: BLE001  (nothing can be reported while being collected)
            pass


__all__ = ["CallCache"]
