"""``.. jitgraph-cli:: module [ARG ...]``: the usage text a command-line entry point prints.

The text is captured from the entry point itself (``module.main([ARG ...])``, ``--help`` by
default) when the pages are built, so the reference is what the installed command says.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


def help_text(module: str, args: list[str]) -> str:
    """What ``python -m <module> ARGS`` prints (stdout and stderr together); the command must
    succeed."""
    main = importlib.import_module(module).main
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code
    if status:
        raise RuntimeError(f"{module}.main({args}) exited with status {status}: "
                           f"{buffer.getvalue()}")
    return buffer.getvalue().rstrip()


class CliReference(SphinxDirective):
    required_arguments = 1
    optional_arguments = 5
    has_content = False

    def run(self) -> list[nodes.Node]:
        module, *args = self.arguments
        text = help_text(module, args or ["--help"])
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("jitgraph-cli", CliReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
