"""``theano.gof.utils`` (re-exported from :mod:`jitgraph.graph.utils`)."""

from jitgraph.graph.utils import MethodNotDefined, hashtype, key_to_cmp, object2

__all__ = ["MethodNotDefined", "hashtype", "key_to_cmp", "object2"]
