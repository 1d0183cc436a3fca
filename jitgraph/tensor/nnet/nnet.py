"""``theano.tensor.nnet.nnet``: where Theano 1.0 defined softmax, the cross-entropies, relu,
elu, ... -- the same objects as :mod:`jitgraph.tensor.nnet`, under their old import path."""

from jitgraph.lazy_exports import alias_module

__getattr__, __dir__ = alias_module(__name__, ["jitgraph.tensor.nnet", "jitgraph.tensor"])
