"""``theano.tensor.inc_code``: the C source Theano pasted into its increment ops. jitgraph
writes no C; ``inc_code()`` raises ``CCodeUnavailableError`` saying so
(:mod:`jitgraph.graph.c_code`)."""

from jitgraph.graph.c_code import CCodeUnavailableError, inc_code

__all__ = ["inc_code", "CCodeUnavailableError"]
