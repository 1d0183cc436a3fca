"""Sphinx configuration of jitgraph's documentation (``python -m sphinx -W -b html docs OUT``).

Pages are MyST Markdown; their examples are ``{doctest}`` blocks that ``-b doctest`` runs
(``tests/docs/test_docs.py`` builds the site and runs them). The flag reference, the
``jitgraph-cache`` reference and the table of Theano names jitgraph cannot provide are generated
from the code at build time by the small extensions in ``docs/_ext``.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))  # the jitgraph of this checkout, installed or not

import jitgraph  # noqa: E402

project = "jitgraph"
author = "the jitgraph developers"
copyright = "2026, the jitgraph developers"
release = jitgraph.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "flag_reference",
    "cli_reference",
    "unavailable_reference",
]

source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_static", "README.md"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# autodoc: the public API as documented by the docstrings; no network (intersphinx has no
# mapping, so a build never downloads an inventory).
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"undoc-members": False}
intersphinx_mapping: dict = {}
napoleon_google_docstring = False

# Every example runs: the same names are in scope on every page.
doctest_global_setup = """
import numpy as np
import jitgraph
import jitgraph.tensor as T
np.set_printoptions(precision=4, suppress=True)
"""
doctest_default_flags = (__import__("doctest").ELLIPSIS
                         | __import__("doctest").NORMALIZE_WHITESPACE
                         | __import__("doctest").DONT_ACCEPT_TRUE_FOR_1)

html_theme = "pydata_sphinx_theme"
html_title = f"jitgraph {release}"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "icon_links": [],
    "secondary_sidebar_items": ["page-toc"],
}
# pages without sub-pages get no (empty) section navigation on the left
html_sidebars: dict = {page: [] for page in ("index", "getting_started", "porting", "gpu",
                                             "performance", "reference/*")}
html_last_updated_fmt = None
html_show_sourcelink = False

nitpicky = False
suppress_warnings: list[str] = []
