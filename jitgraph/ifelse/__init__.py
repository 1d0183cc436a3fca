"""``theano.ifelse``: the lazy conditional ``ifelse(condition, then_branch, else_branch)`` and
its op :class:`IfElse` (compiled functions evaluate only the branch taken; see
:mod:`jitgraph.ifelse.lazy`, registered with the other rewrite modules), and Theano's ifelse
rewrites under their names (:mod:`jitgraph.ifelse.rewrites`)."""

from jitgraph.ifelse.op import IfElse, ifelse
from jitgraph.lazy_exports import lazy_exports

#: names imported on first use (the rewrites and Theano's re-exports pull in the tensor package)
_LAZY = {
    "LazyIfElse": "jitgraph.ifelse.lazy",
    **dict.fromkeys(("CondMerge", "cond_make_inplace", "cond_merge_ifs_false",
                     "cond_merge_ifs_true", "cond_merge_random_op", "cond_remove_identical",
                     "ifelse_lift_single_if_through_acceptable_ops"), "jitgraph.ifelse.rewrites"),
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

# Theano's module imported these for its own use; scripts reach them through it (served by
# jitgraph._facade.paths)
__all__ = ["ifelse", "IfElse", *_LAZY, "Apply", "Op", "TensorType", "clone", "optdb"]
