"""Comparing what a script printed under jitgraph with what it printed under Theano: the text
between the numbers must match (runs of whitespace count as one space, since NumPy pads array
columns to the widest value), and the numbers must agree to a relative 1e-6."""

from __future__ import annotations

import math
import re

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|\binf\b")
RTOL = 1e-6
ATOL = 1e-12


def split(text: str) -> tuple[list[str], list[float]]:
    """The text around the numbers (whitespace runs as one space) and the numbers."""
    words, numbers = [], []
    pos = 0
    for match in NUMBER.finditer(text):
        words.append(" ".join(text[pos:match.start()].split()))
        numbers.append(float(match.group()))
        pos = match.end()
    words.append(" ".join(text[pos:].split()))
    return words, numbers


def differences(expected: str, got: str) -> list[str]:
    """Where ``got`` differs from ``expected`` (empty when they agree), line by line."""
    exp_lines, got_lines = expected.splitlines(), got.splitlines()
    problems = []
    if len(exp_lines) != len(got_lines):
        problems.append(f"{len(got_lines)} lines printed, Theano printed {len(exp_lines)}")
    for k, (e, g) in enumerate(zip(exp_lines, got_lines), 1):
        e_words, e_nums = split(e)
        g_words, g_nums = split(g)
        same_numbers = len(e_nums) == len(g_nums) and all(
            math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL) or (math.isnan(a) and math.isnan(b))
            for a, b in zip(e_nums, g_nums))
        if e_words != g_words or not same_numbers:
            problems.append(f"line {k}:\n  Theano:   {e}\n  jitgraph: {g}")
    return problems
