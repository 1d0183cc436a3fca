"""Numerical stabilization: log1p, expm1, log_softmax, logsumexp, stable cross-entropies and their gradients."""

from __future__ import annotations
