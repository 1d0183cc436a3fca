"""``theano._version``: the version record Theano's build tool (versioneer) wrote, with
:func:`get_versions`. Here it describes jitgraph (see :mod:`jitgraph.version`)."""

from __future__ import annotations

import json
from typing import Any

from jitgraph import __version__

version_json: str = json.dumps({"date": None, "dirty": False, "error": None,
                                "full-revisionid": None, "version": __version__}, indent=1)


def get_versions() -> dict[str, Any]:
    """``{'version': ..., 'full-revisionid': ..., 'dirty': ..., 'error': ..., 'date': ...}``,
    a new dict on each call (callers may change it)."""
    return json.loads(version_json)


__all__ = ["get_versions", "version_json"]
