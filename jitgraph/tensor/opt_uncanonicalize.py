"""``theano.tensor.opt_uncanonicalize``: the phase of rewrites that undo canonical forms
before specialisation. jitgraph has the phase (``register_uncanonicalize``,
:mod:`jitgraph.rewrite.phases`); of Theano's rewrites in it, ``local_dimshuffle_alloc`` exists
(:mod:`jitgraph.tensor.rewriting.shape`). Theano's ``local_max_to_min``, ``local_alloc_dimshuffle``,
``local_reshape_dimshuffle``, ``local_dimshuffle_subtensor`` and ``local_max_and_argmax`` are
not provided."""

from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.phases import register_uncanonicalize
from jitgraph.tensor.rewriting.shape import local_dimshuffle_alloc

__all__ = ["register_uncanonicalize", "local_dimshuffle_alloc", "copy_stack_trace"]
