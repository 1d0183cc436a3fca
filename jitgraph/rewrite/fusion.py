"""Elementwise fusion into Composite ops, and fusion of elementwise inputs into reductions."""

from __future__ import annotations
