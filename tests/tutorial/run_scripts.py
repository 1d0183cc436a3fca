"""Runs Theano tutorial scripts (``scripts/*.py``, written for Theano) with ``theano`` imported
as jitgraph, all in this one process, and prints a JSON object ``{script: {"out": what it
printed, "error": the exception or null}}``.

``python run_scripts.py [names...]``; with ``--theano`` the scripts run under the real Theano
(used by ``record_theano_outputs.py`` through theano-oracle), without any aliasing.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import io
import json
import pathlib
import sys
import traceback

SCRIPTS = pathlib.Path(__file__).resolve().parent / "scripts"


class TheanoAsJitgraph(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import theano.x.y`` gives the module ``jitgraph.x.y`` (the same module object)."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001, ANN201
        if fullname == "theano" or fullname.startswith("theano."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):  # noqa: ANN001, ANN201
        return importlib.import_module("jitgraph" + spec.name[len("theano"):])

    def exec_module(self, module):  # noqa: ANN001, ANN201
        pass


def run(path: pathlib.Path) -> dict:
    out = io.StringIO()
    error = None
    namespace = {"__name__": "__main__", "__file__": str(path)}
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(path.read_text(), str(path), "exec"), namespace)
        except BaseException as exc:  # noqa: BLE001 - reported to the test, which fails
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            error += "\n" + "".join(traceback.format_tb(exc.__traceback__)[-3:])
    return {"out": out.getvalue(), "error": error}


def main(argv: list[str]) -> None:
    real_theano = "--theano" in argv
    names = [a for a in argv if not a.startswith("--")]
    if not real_theano:
        sys.meta_path.insert(0, TheanoAsJitgraph())
    paths = sorted(SCRIPTS.glob("*.py"))
    if names:
        paths = [p for p in paths if p.stem in names]
    results = {p.stem: run(p) for p in paths}
    sys.stdout.write(json.dumps(results, indent=1, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
