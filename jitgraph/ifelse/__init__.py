"""``theano.ifelse``: the lazy conditional ``ifelse(condition, then_branch, else_branch)`` and
its op :class:`IfElse` (compiled functions evaluate only the branch taken; see
:mod:`jitgraph.ifelse.lazy`, registered with the other rewrite modules)."""

from jitgraph.ifelse.op import IfElse, ifelse

__all__ = ["ifelse", "IfElse", "LazyIfElse"]


def __getattr__(name: str):  # noqa: ANN202 - PEP 562
    if name == "LazyIfElse":
        from jitgraph.ifelse.lazy import LazyIfElse

        return LazyIfElse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
