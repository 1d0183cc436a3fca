"""``theano.misc.windows``: running a command without opening a console window on Windows
(``subprocess.Popen`` elsewhere), returning the process, its exit code or its output."""

from __future__ import annotations

import os
import subprocess
from typing import Any


def subprocess_Popen(command: Any, **params: Any) -> subprocess.Popen:  # noqa: N802
    """``subprocess.Popen(command, **params)`` with stdin from the null device unless given;
    on Windows, without a console window and through the shell (so ``.bat`` files run)."""
    startupinfo = None
    if os.name == "nt":
        startupinfo = subprocess.STARTUPINFO()  # type: ignore[attr-defined]
        startupinfo.dwFlags |= subprocess.STARTF_USESHOWWINDOW  # type: ignore[attr-defined]
        params["shell"] = True
        if isinstance(command, list):
            command = " ".join(command)
    if "stdin" in params:
        return subprocess.Popen(command, startupinfo=startupinfo, **params)
    with open(os.devnull) as devnull:
        return subprocess.Popen(command, startupinfo=startupinfo, stdin=devnull, **params)


def call_subprocess_Popen(command: Any, **params: Any) -> int:  # noqa: N802
    """Run ``command`` with its output discarded; its exit code."""
    if "stdout" in params or "stderr" in params:
        raise TypeError("call_subprocess_Popen discards the output: do not pass stdout or "
                        "stderr")
    with open(os.devnull, "wb") as null:
        params.setdefault("stdin", null)
        return subprocess_Popen(command, stdout=null, stderr=null, **params).wait()


def output_subprocess_Popen(command: Any, **params: Any) -> tuple[bytes, bytes, int]:  # noqa: N802
    """Run ``command``; ``(stdout, stderr, exit code)``."""
    if "stdout" in params or "stderr" in params:
        raise TypeError("output_subprocess_Popen captures the output: do not pass stdout or "
                        "stderr")
    proc = subprocess_Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **params)
    out, err = proc.communicate()
    return out, err, proc.returncode


__all__ = ["subprocess_Popen", "call_subprocess_Popen", "output_subprocess_Popen"]
