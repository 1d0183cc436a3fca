"""Matching helpers shared by the tensor rewrites (elementwise op names, scalar constants)."""

from __future__ import annotations
