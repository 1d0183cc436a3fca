"""The documentation site (``docs/``) builds without a single warning, and every example on its
pages runs and prints what the page shows.

One HTML build with ``-W`` (a warning fails it: a broken cross-reference, a docstring autodoc
cannot parse, a page left out of every toctree), then Sphinx's doctest builder on the same
doctrees (the pages are read once). The doctest count must equal the number of ``>>>`` lines on
the pages, so an example block that Sphinx does not run (a ``python`` block with prompts, a
misspelt directive) fails the test too. Needs the ``docs`` extra (the README's test command
installs it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"

for _module in ("sphinx", "myst_parser", "pydata_sphinx_theme"):
    pytest.importorskip(_module, reason="the docs extra is not installed "
                                        "(pip install -e '.[docs]')")


def _sphinx(builder: str, out: Path, doctrees: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder,
         "-d", str(doctrees), str(DOCS), str(out)],
        capture_output=True, text=True, timeout=600, env=os.environ.copy())


def _prompts_on_pages() -> int:
    """``>>>`` lines in the pages' ``{doctest}`` blocks (the only blocks with prompts)."""
    return sum(len(re.findall(r"^>>> ", page.read_text(encoding="utf-8"), re.M))
               for page in DOCS.rglob("*.md") if "_build" not in page.parts)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    html = _sphinx("html", out / "html", out / "doctrees")
    assert html.returncode == 0, f"sphinx-build -W -b html failed:\n{html.stderr[-6000:]}"
    return out


def test_site_builds_without_warnings(built: Path) -> None:
    html = built / "html"
    for page in ("index", "getting_started", "porting", "gpu", "performance", "internals",
                 "architecture", "adding_an_op", "reference/api", "reference/flags",
                 "reference/cli", "tutorial/index", "tutorial/scan", "tutorial/dask"):
        assert (html / f"{page}.html").is_file(), page
    assert (html / "_static/bench/large-graph-compile.png").is_file()


def test_every_example_runs_and_prints_what_the_page_shows(built: Path) -> None:
    run = _sphinx("doctest", built / "doctest", built / "doctrees")
    report = (built / "doctest" / "output.txt").read_text()
    assert run.returncode == 0, f"doctest failures:\n{report[-8000:]}\n{run.stderr[-4000:]}"
    ran = int(re.search(r"^\s*(\d+) tests?$", report, re.M).group(1))
    assert ran == _prompts_on_pages(), (
        f"the doctest builder ran {ran} examples but the pages have {_prompts_on_pages()} "
        "`>>>` lines: a block with prompts is not a {doctest} block")
    assert re.search(r"^\s*0 failures in tests$", report, re.M), report[-3000:]


def test_generated_references_list_what_the_code_has(built: Path) -> None:
    """The flag reference names every registered flag, the CLI page shows the command's own
    usage text, and the porting guide's table lists every unavailable Theano name."""
    from jitgraph.config import config
    from jitgraph.unavailable import unavailable

    html = built / "html"
    flags = (html / "reference/flags.html").read_text()
    missing = [name for name in config.flag_names()
               if f'<span class="pre">{name}</span>' not in flags]
    assert not missing, missing
    assert "jitgraph-cache basecompiledir" in (html / "reference/cli.html").read_text()
    porting = (html / "porting.html").read_text()
    meta = type(unavailable("m", "n", "r"))
    import jitgraph.gof.cmodule as cmodule

    placeholders = [n for n, v in vars(cmodule).items() if type(v) is meta]
    assert placeholders and all(name in porting for name in placeholders)
