"""``theano.gof.optdb``: the rewrite databases (:mod:`jitgraph.rewrite.db`). ``Query`` is
jitgraph's ``RewriteDatabaseQuery`` (include/require/exclude tags); ``DB`` is the base class."""

from jitgraph.rewrite.db import EquilibriumDB, LocalGroupDB, RewriteDatabase, SequenceDB
from jitgraph.rewrite.db import RewriteDatabaseQuery as Query

DB = RewriteDatabase

__all__ = ["DB", "Query", "SequenceDB", "EquilibriumDB", "LocalGroupDB"]
