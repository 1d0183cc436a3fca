"""Theano's ``theano.sandbox`` path: ``rng_mrg`` (MRG31k3p random streams) lives in
:mod:`jitgraph.random`; this package only re-exports it."""


def __getattr__(name: str):
    """``theano.sandbox.rng_mrg`` (and ``multinomial``) without importing it first, as Theano
    users write it."""
    if name in ("rng_mrg", "multinomial"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
