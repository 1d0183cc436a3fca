"""What every fresh benchmark process (``compile_child.py``, ``conv_child.py``) does before and
after timing: import the system under test, and checksum its first outputs. Standard library
only at import time: the Theano oracle's interpreter runs ``conv_child.py`` too."""

from __future__ import annotations

import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def import_system(system: str) -> None:
    """Import NumPy and ``system``'s package (jitgraph: its backend's linker module, which does
    not import Numba), with the settings the benchmarks compare under."""
    import numpy  # noqa: F401

    if system.startswith("jitgraph"):
        sys.path.insert(0, os.path.dirname(HERE))
        import jitgraph
        import jitgraph.backend_cpu.linker
        import jitgraph.tensor  # noqa: F401
    elif system.startswith("pytensor"):
        warnings.filterwarnings("ignore", message=".*BLAS.*")
        import pytensor
        import pytensor.tensor  # noqa: F401
    elif system == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)  # float64 runs need it; float32 stays float32
        cache = os.environ.get("BENCH_JAX_CACHE")
        if cache:
            jax.config.update("jax_compilation_cache_dir", cache)
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
            jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    elif system == "theano":
        warnings.filterwarnings("ignore")
        import theano  # noqa: F401


def checksum(out: object) -> float:
    """One float summing every output: compares the systems' first steps."""
    import numpy as np

    parts = out if isinstance(out, (list, tuple)) else [out]
    return float(sum(np.asarray(p, dtype="float64").sum() for p in parts))
