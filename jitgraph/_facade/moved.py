"""Modules that moved into subpackages (issue 26, ``tools/restructure.py``): old module path ->
new one. Written by ``tools/restructure.py``; data only."""

from __future__ import annotations

#: old module path -> new module path
MOVED: dict[str, str] = {
}
