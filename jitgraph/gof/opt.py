"""``theano.gof.opt``: Theano's ``local_optimizer`` decorator and ``LocalOptimizer`` (a rewrite
written as ``f(node)``), with the graph-rewriting helpers of :mod:`jitgraph.rewrite`, under the
old import path."""

from jitgraph.lazy_exports import alias_module

__getattr__, __dir__ = alias_module(__name__, [
    "jitgraph.rewrite.theano_api", "jitgraph.rewrite"])
