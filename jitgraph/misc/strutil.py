"""``theano.misc.strutil``: small string helpers for generated code."""

from __future__ import annotations

from typing import Any, Mapping


def render_string(string: str, sub: Mapping[str, Any]) -> str:
    """``string % sub``; when that fails, the error shows the shortest prefix of ``string``
    that fails in the same way, so the faulty ``%(...)s`` is easy to find."""
    try:
        return string % sub
    except Exception as error:  # noqa: BLE001  (re-raised with the place it happened)
        for end in range(len(string) + 1):
            try:
                string[:end] % sub
            except Exception as prefix_error:  # noqa: BLE001
                if str(prefix_error) == str(error):
                    raise Exception(f"{string[:end]}<<<< caused exception {prefix_error}"
                                    ) from error
        raise


def strip_leading_white_space(line: str) -> str:
    """``line`` without its leading spaces and tabs."""
    return line.lstrip(" \t")


def pretty_format(string: str) -> str:
    """Re-indent C-like code by four spaces per open ``{``."""
    lines = [strip_leading_white_space(line) for line in string.split("\n")]
    indent = 0
    for i, line in enumerate(lines):
        indent = max(indent - line.count("}"), 0)
        lines[i] = "    " * indent + line
        indent += line.count("{")
    return "\n".join(lines)


__all__ = ["render_string", "pretty_format", "strip_leading_white_space"]
