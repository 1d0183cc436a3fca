"""``theano.gof.compiledir``: looking at and cleaning the compile folder, as the
``jitgraph-cache`` command does (:mod:`jitgraph.cache.__main__`)."""

from __future__ import annotations

from typing import Any

from jitgraph.cache.__main__ import main


def _cache_command(*args: str) -> int:
    return main(list(args))


def print_title(title: str, overline: str = "", underline: str = "") -> None:
    """Print ``title`` between lines of ``overline`` and ``underline`` characters."""
    width = len(title)
    if overline:
        print(str(overline) * width)
    print(title)
    if underline:
        print(str(underline) * width)


def print_compiledir_content() -> None:
    """List the entries of the compile folder (``jitgraph-cache list``)."""
    _cache_command("list")


def cleanup(**kwargs: Any) -> None:
    """Delete old and abandoned entries (``jitgraph-cache cleanup``)."""
    _cache_command("cleanup")


def compiledir_purge() -> None:
    """Delete the whole compile folder (``jitgraph-cache purge``)."""
    _cache_command("purge")


def basecompiledir_ls() -> None:
    """List what ``base_compiledir`` holds (``jitgraph-cache basecompiledir list``)."""
    _cache_command("basecompiledir", "list")


def basecompiledir_purge() -> None:
    """Delete ``base_compiledir`` (``jitgraph-cache basecompiledir purge``)."""
    _cache_command("basecompiledir", "purge")


__all__ = ["print_title", "print_compiledir_content", "cleanup", "compiledir_purge",
           "basecompiledir_ls", "basecompiledir_purge"]
