"""``python -m jitgraph.theano_compat script.py [args]``: run a Theano program on jitgraph.

The script (or, with ``-m module``, a module) runs as ``python script.py args`` would run it --
as ``__main__``, with ``sys.argv`` set to ``[script, *args]`` and its folder first on
``sys.path`` -- except that ``import theano`` gives jitgraph. The exit status is the script's.
"""

from __future__ import annotations

import os
import runpy
import sys

from jitgraph.theano_compat import provide_theano

USAGE = ("usage: python -m jitgraph.theano_compat script.py [args...]\n"
         "       python -m jitgraph.theano_compat -m module [args...]\n"
         "Runs a Theano program with `import theano` giving jitgraph.")


def main(argv: list[str]) -> None:
    """Run the script or module ``argv`` names, with the Theano alias on."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        raise SystemExit(2 if not argv else 0)
    provide_theano()
    if argv[0] == "-m":
        if len(argv) < 2:
            raise SystemExit("jitgraph.theano_compat: -m needs a module name\n" + USAGE)
        sys.argv = argv[1:]  # sys.path[0] is already the current folder, as for python -m
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    script = argv[0]
    if not os.path.exists(script):
        raise SystemExit(f"jitgraph.theano_compat: can't open file {script!r}: no such file")
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(script))  # as python script.py sets it
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
