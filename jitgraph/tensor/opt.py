"""``theano.tensor.opt``: the registration functions a Theano user calls to add a graph rewrite
(``register_canonicalize``, ``register_specialize``, ``register_stabilize``, ...), the
``local_optimizer`` decorator, ``ShapeFeature`` and the helpers Theano's rewrites import from
here (``get_scalar_constant_value``, ``MakeVector``, ``copy_stack_trace``, ...) -- jitgraph's
objects under the old import path. Theano's own rewrites are not aliased one by one: jitgraph's
are in :mod:`jitgraph.rewrite`."""

from jitgraph.lazy_exports import alias_module

__getattr__, __dir__ = alias_module(__name__, [
    "jitgraph.rewrite.phases", "jitgraph.rewrite.theano_api", "jitgraph.tensor.rewriting.shape",
    "jitgraph.rewrite", "jitgraph.tensor", "jitgraph.gof"])
