"""``theano.scan_module.scan_opt``: the rewrites of scan loops.

jitgraph's scan rewrites (dropping unused outputs, keeping only the last steps' states, merging
loops over the same sequences, pushing elementwise work into a loop) live in
:mod:`jitgraph.scan.rewrites` and :mod:`jitgraph.scan.merge`; they are functions of
``(fgraph, node)`` registered in ``jitgraph.compile.optdb`` under the tag ``"scan"``, and this
module re-exports them. Theano's optimizer classes (``ScanSaveMem``, ``ScanMerge``,
``PushOutNonSeqScan``, ...) have no one-to-one counterpart: they are not provided.
"""

from jitgraph.lazy_exports import alias_module

__getattr__, __dir__ = alias_module(__name__, ["jitgraph.scan.rewrites", "jitgraph.scan.merge"])
