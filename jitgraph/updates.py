"""``theano.updates``: :class:`OrderedUpdates`, the ordered ``{shared variable: new value}``
mapping that ``scan`` returns and ``function(updates=...)`` accepts (defined in
:mod:`jitgraph.scan.updates`)."""

from collections import OrderedDict

from jitgraph.graph.shared import SharedVariable
from jitgraph.scan.updates import OrderedUpdates

__all__ = ["OrderedUpdates", "OrderedDict", "SharedVariable"]
