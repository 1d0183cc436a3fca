"""Compiled jitgraph functions on Dask: blockwise evaluation of Dask arrays, data-parallel
training, and per-worker compilation (``pip install jitgraph[dask]``).

* :func:`map_blocks` applies a compiled function to Dask arrays chunk by chunk (row-local
  outputs stay chunked, reductions over the rows are combined by Dask's tree reduction);
* :class:`DataParallelSGD` runs the synchronous SGD loop over the shards of persisted Dask
  arrays, one gradient task per worker and step;
* :func:`first_call_times` and :func:`compile_on_workers` report and force each worker's
  compilation of a function;
* :func:`gpu_per_worker` gives each worker a GPU of its own (workers started with
  ``THEANO_FLAGS=device=cudaN`` have theirs already): functions shipped to a worker are
  compiled there for its device.

Importing this package imports Dask; ``import jitgraph`` does not.
"""

try:
    import dask.array  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("jitgraph.dask needs Dask: pip install 'jitgraph[dask]' (dask[array,"
                      "distributed])") from exc

from jitgraph.dask.blockwise import map_blocks, plan_blocks
from jitgraph.dask.devices import gpu_per_worker
from jitgraph.dask.locality import NotBlockwiseError
from jitgraph.dask.training import DataParallelSGD
from jitgraph.dask.workers import BlockError, compile_on_workers, first_call_times, ship

__all__ = ["map_blocks", "plan_blocks", "DataParallelSGD", "BlockError", "NotBlockwiseError",
           "compile_on_workers", "first_call_times", "gpu_per_worker", "ship"]
