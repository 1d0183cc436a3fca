"""Theano's tutorial pages (doc/tutorial/*.txt of Theano 1.0) as scripts a Theano user writes
(``scripts/``: ``import theano; import theano.tensor as T``), run with ``theano`` imported as
jitgraph; what they print is compared with what they printed under Theano 1.0.5
(``theano_outputs.json``, recorded by ``record_theano_outputs.py``): the text must match, the
numbers to a relative 1e-6. All scripts run in one subprocess.

Not here: loop.txt (tests/scan/test_scan_tutorial.py), using_gpu.txt, sparse.txt, the C parts
of extending_theano*.txt, pydotprint's image files.
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from tutorial_compare import differences  # noqa: E402

SCRIPTS = sorted(p.stem for p in (HERE / "scripts").glob("*.py"))
EXPECTED = json.loads((HERE / "theano_outputs.json").read_text())

#: differences that are accepted, per script: (pattern, replacement, why) applied to both outputs
ACCEPTED = {
    # Theano hands out one cached constant object per small Python number, so both 1s of
    # 1 / (1 + exp(...)) print with the same id; jitgraph's are two constants: the ids differ.
    "printing_drawing": [(r"\[id [A-Z]+\]", "[id]", "cached constants share ids in Theano")],
    # The position in the schedule (debugprint's last column) depends on the scheduler.
    "shape_info": [(r"''\s+\d+$", "''", "node order of the compiled graph")],
}


@pytest.fixture(scope="module")
def jitgraph_outputs() -> dict:
    run = subprocess.run([sys.executable, str(HERE / "run_scripts.py")], capture_output=True,
                         text=True, timeout=300, cwd=HERE)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def _normalized(name: str, text: str) -> str:
    for pattern, replacement, _why in ACCEPTED.get(name, []):
        text = re.sub(pattern, replacement, text, flags=re.MULTILINE)
    return text


def test_every_script_was_recorded():
    assert sorted(EXPECTED) == SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_tutorial_page_prints_what_theano_prints(name, jitgraph_outputs):
    expected, got = EXPECTED[name], jitgraph_outputs[name]
    assert expected["error"] is None, f"the script failed under Theano: {expected['error']}"
    assert got["error"] is None, f"{name} failed under jitgraph:\n{got['error']}"
    problems = differences(_normalized(name, expected["out"]), _normalized(name, got["out"]))
    assert not problems, "\n".join(problems)


def test_the_comparison_catches_differences():
    assert differences("array([1.5, 2. ])\nTensorConstant{1}", "array([1.5,  2.])\n"
                       "TensorConstant{1}") == []
    assert differences("x = 1.0000001", "x = 1.0000002") == []
    assert differences("x = 1.001", "x = 1.002")
    assert differences("Elemwise{add}", "Elemwise{mul}")
    assert differences("a\nb", "a")
