"""``theano.gof.lazylinker_c``: the C implementation of Theano's lazy VM (the ``cvm`` linker),
compiled with g++ on first import. jitgraph's ``cvm`` linker is its compiled program (see
:mod:`jitgraph.compile.linker`); ``CLazyLinker`` and ``get_version`` raise
``NotAvailableError`` when used. (Theano itself failed to import this module where g++ was
missing.)"""

from jitgraph.unavailable import unavailable_names

unavailable_names(__name__, {name: "the C extension of Theano's lazy VM, compiled with g++; "
                             "jitgraph's 'cvm' linker is not built from it"
                             for name in ("CLazyLinker", "get_version")}, globals())

__all__: list = []
