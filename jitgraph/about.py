"""jitgraph's version, where every layer may read it (the package root re-exports it as
``jitgraph.__version__``)."""

VERSION: str = "0.1.0"

__all__ = ["VERSION"]
