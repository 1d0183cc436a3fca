"""``theano.gof.utils`` (re-exported from :mod:`jitgraph.graph.utils`)."""

from jitgraph.graph.utils import (MethodNotDefined, difference, flatten, hash_from_code,
                                  hash_from_file, hashtype, key_to_cmp, object2, remove, uniq)

__all__ = ["MethodNotDefined", "difference", "flatten", "hash_from_code", "hash_from_file",
           "hashtype", "key_to_cmp", "object2", "remove", "uniq"]
