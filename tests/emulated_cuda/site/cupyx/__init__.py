"""cupyx of the emulated device (what jitgraph uses of it)."""

from emulated_cuda.routines import scatter_add  # noqa: F401
