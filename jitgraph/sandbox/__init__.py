"""Theano's ``theano.sandbox`` path: ``rng_mrg`` (MRG31k3p random streams, from
:mod:`jitgraph.random`), ``multinomial``, ``linalg``, ... Theano's moved names are rows of
:mod:`jitgraph._facade.paths`; ``rng_mrg`` and ``multinomial`` are attributes without being
imported first, as Theano users write them."""
