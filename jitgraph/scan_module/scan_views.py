"""``theano.scan_module.scan_views``: ``map``, ``reduce``, ``foldl``, ``foldr``, the special
cases of ``scan`` (:mod:`jitgraph.scan.views`)."""

from jitgraph.scan.builder import scan
from jitgraph.scan.views import foldl, foldr, map, reduce  # noqa: A004  (Theano's names)

__all__ = ["map", "reduce", "foldl", "foldr", "scan"]
