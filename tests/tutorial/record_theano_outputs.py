"""Records what the tutorial scripts print under the real Theano 1.0.5 (run by hand where
theano-oracle exists; the tests read the recorded ``theano_outputs.json``)::

    python tests/tutorial/record_theano_outputs.py [/path/to/theano-oracle]

Scripts using scan run with ``ORACLE_PY=1`` (Theano's C scan does not build on Python 3.11).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
#: scripts that need Theano's Python implementations (they use scan)
PYTHON_ONLY = ["gradients"]


def run_oracle(oracle: str, names: list[str], python_only: bool) -> dict:
    env = dict(os.environ, ORACLE_PY="1" if python_only else "0")
    out = subprocess.run([oracle, str(HERE / "run_scripts.py"), "--theano", *names], env=env,
                         capture_output=True, text=True, check=True, cwd=HERE).stdout
    return json.loads(out)


def main() -> None:
    oracle = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/tools/theano-oracle"
    names = sorted(p.stem for p in (HERE / "scripts").glob("*.py"))
    results = run_oracle(oracle, [n for n in names if n not in PYTHON_ONLY], False)
    results.update(run_oracle(oracle, [n for n in names if n in PYTHON_ONLY], True))
    (HERE / "theano_outputs.json").write_text(json.dumps(results, indent=1, sort_keys=True)
                                              + "\n")
    for name, res in sorted(results.items()):
        print(name, "error: " + res["error"].splitlines()[0] if res["error"] else "ok")


if __name__ == "__main__":
    main()
