"""``theano.sparse.utils``: ``hash_from_sparse``, a hash of a SciPy sparse matrix's format,
shape, dtype and data (:mod:`jitgraph.sparse.type`)."""

from jitgraph.graph.utils import hash_from_code
from jitgraph.sparse.type import hash_from_sparse

__all__ = ["hash_from_sparse", "hash_from_code"]
