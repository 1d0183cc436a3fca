"""The shape and indexing part of Theano 1.0's ``theano.tensor`` namespace, gathered from the
modules that define it (one star-import of this module exports them all)."""

from jitgraph.tensor.shaping.assemble import *  # noqa: F401,F403
from jitgraph.tensor.shaping.assemble import __all__ as _assemble
from jitgraph.tensor.indexing.boolean_index import *  # noqa: F401,F403
from jitgraph.tensor.indexing.boolean_index import __all__ as _boolean_index
from jitgraph.tensor.indexing.index_helpers import *  # noqa: F401,F403
from jitgraph.tensor.indexing.index_helpers import __all__ as _index_helpers
from jitgraph.tensor.shaping.special_matrices import *  # noqa: F401,F403
from jitgraph.tensor.shaping.special_matrices import __all__ as _special_matrices
from jitgraph.tensor.indexing.nonzero_ops import *  # noqa: F401,F403
from jitgraph.tensor.indexing.nonzero_ops import __all__ as _nonzero
from jitgraph.tensor.indexing.reorder import *  # noqa: F401,F403
from jitgraph.tensor.indexing.reorder import __all__ as _reorder
from jitgraph.tensor.elementwise.statistics import *  # noqa: F401,F403
from jitgraph.tensor.elementwise.statistics import __all__ as _statistics
from jitgraph.tensor.core.theano_op_classes import *  # noqa: F401,F403
from jitgraph.tensor.core.theano_op_classes import __all__ as _op_classes

__all__ = [*_assemble, *_boolean_index, *_index_helpers, *_special_matrices, *_nonzero, *_reorder,
           *_statistics, *_op_classes]
