"""Specialization: small integer powers, division by constants, reductions of dimshuffles."""

from __future__ import annotations
