"""The rewrites of tensor graphs, beside the ops they rewrite.

Each module registers its rewriters into the rewrite engine's database
(:data:`jitgraph.rewrite.phases.optdb`) when imported; the package root lists them
(``jitgraph.REWRITE_MODULES``) so that they are imported before the first graph is rewritten,
not when ``jitgraph.tensor`` is.

* :mod:`.canonicalize`, :mod:`.specialize`, :mod:`.stabilize`: algebraic simplification, the
  faster forms, the numerically stable forms;
* :mod:`.shape`: shape inference (``ShapeFeature``) and the shape rewrites;
* :mod:`.subtensor_merge`: ``x[s1][s2]`` as one Subtensor where that is exact;
* :mod:`.subtensor_lift`: indexing moved before elementwise work;
* :mod:`.fusion`: elementwise fusion into ``Composite`` kernels;
* :mod:`.inplace`: in-place versions of ops, when the destroy handler allows;
* :mod:`.blas`, :mod:`.conv`, :mod:`.sigmoid`, :mod:`.crossentropy`: the rewrites of those ops;
* :mod:`.utils`: helpers the rewrites share.
"""
