"""The README's "Layout" section matches the tree: it names every subpackage of ``jitgraph``
(a folder with an ``__init__.py``), and every ``jitgraph/<name>`` it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def layout_block() -> str:
    """The code block of the README's Layout section."""
    section = ROOT.joinpath("README.md").read_text().split("\n## Layout\n", 1)[1]
    return section.split("```", 2)[1]


def subpackages() -> set[str]:
    return {p.parent.name for p in (ROOT / "jitgraph").glob("*/__init__.py")}


def test_layout_names_every_subpackage() -> None:
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", layout_block()))
    assert not subpackages() - words, f"missing from the README's layout: {subpackages() - words}"


def test_layout_names_only_folders_that_exist() -> None:
    named = set(re.findall(r"jitgraph/([A-Za-z_]+)", layout_block()))
    assert named and not named - subpackages(), named - subpackages()
