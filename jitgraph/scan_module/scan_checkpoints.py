"""``theano.scan_module.scan_checkpoints``: ``scan`` that keeps only every n-th state for the
gradient (:mod:`jitgraph.scan.checkpoints`)."""

from jitgraph.scan.checkpoints import scan_checkpoints

__all__ = ["scan_checkpoints"]
