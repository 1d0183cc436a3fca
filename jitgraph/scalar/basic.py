"""``theano.scalar.basic``: where Theano 1.0 defined the scalar types and ops that
``theano.scalar`` exports -- the same objects as :mod:`jitgraph.scalar`, under the old path."""

from jitgraph.lazy_exports import alias_module

__getattr__, __dir__ = alias_module(__name__, ["jitgraph.scalar"])
