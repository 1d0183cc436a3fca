"""``theano.ifelse``: the lazy conditional ``ifelse(condition, then_branch, else_branch)`` and
its op :class:`IfElse` (compiled functions evaluate only the branch taken; see
:mod:`jitgraph.ifelse.lazy`)."""

from jitgraph.ifelse.op import IfElse, ifelse
from jitgraph.ifelse import lazy as _lazy  # noqa: F401  (registers the lazy-branches rewrite)
from jitgraph.ifelse.lazy import LazyIfElse

__all__ = ["ifelse", "IfElse", "LazyIfElse"]
