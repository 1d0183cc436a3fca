"""Theano's ``theano.sandbox`` path: ``rng_mrg`` (MRG31k3p random streams) lives in
:mod:`jitgraph.random`; this package only re-exports it."""
