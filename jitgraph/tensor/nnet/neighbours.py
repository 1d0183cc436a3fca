"""``theano.tensor.nnet.neighbours`` (defined in :mod:`jitgraph.tensor.neighbours`)."""

from jitgraph.graph.basic import Apply
from jitgraph.graph.enum_type import EnumList
from jitgraph.graph.op import Op
from jitgraph.gradient import grad_not_implemented, grad_undefined
from jitgraph.tensor.neighbours import Images2Neibs, Neibs2ImagesAdd, images2neibs, neibs2images

__all__ = ["Images2Neibs", "Neibs2ImagesAdd", "images2neibs", "neibs2images",
           # Theano's module imported these for its own use; scripts reach them through it
           "Apply", "EnumList", "Op", "grad_not_implemented", "grad_undefined"]
