"""Canonicalization: algebraic identities, flattening add/mul chains, collecting constants, merging dimshuffles and casts, removing useless ops."""

from __future__ import annotations
