"""The README's "More than one machine" example is examples/dask_logistic_regression.py, and it
runs: the cost falls and the predictions are accurate."""

from __future__ import annotations

import pathlib
import re

import pytest

from tests.dask.conftest import DASK_MISSING, folder_of_tests_off_sys_path

pytest.importorskip("dask.array", reason=DASK_MISSING)
pytest.importorskip("distributed", reason=DASK_MISSING)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _readme_example() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## More than one machine", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "the section has one runnable example"
    return blocks[0]


def test_readme_example_is_the_example_program_and_runs(capsys):
    code = _readme_example()
    program = (ROOT / "examples" / "dask_logistic_regression.py").read_text()
    assert code.strip() in program  # the README shows the program (less its header comment)
    namespace = {"__name__": "readme_example"}
    exec(compile(code, "README.md", "exec"), namespace)
    with folder_of_tests_off_sys_path():  # the example starts worker processes of its own
        costs, accuracy = namespace["main"]()
    assert len(costs) == 5 * 10 and costs[-1] < 0.5 * costs[0]
    assert accuracy > 0.95
    printed = capsys.readouterr().out
    assert "first call on each worker (s): {'tcp://" in printed
