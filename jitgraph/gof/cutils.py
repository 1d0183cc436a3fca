"""``theano.gof.cutils``: a C extension Theano compiled with g++ on first import (it runs C
thunks). jitgraph has no C thunks; ``run_cthunk`` raises ``NotAvailableError`` when used.
(Theano itself failed to import this module where g++ was missing.)"""

from jitgraph.unavailable import unavailable_names

unavailable_names(__name__, {name: "a C extension of Theano's, compiled with g++; jitgraph "
                             "runs no C thunks" for name in ("run_cthunk", "compile_cutils")},
                  globals())

__all__: list = []
