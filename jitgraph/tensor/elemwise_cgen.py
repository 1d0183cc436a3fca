"""``theano.tensor.elemwise_cgen``: Theano's C loop generator for elementwise ops. jitgraph
generates Numba kernels instead (:mod:`jitgraph.backend_cpu.elemwise_codegen`); every name
raises ``NotAvailableError`` when used."""

from jitgraph.unavailable import unavailable_names

unavailable_names(__name__, {name: "Theano's C loop generator for Elemwise; jitgraph generates "
                             "Numba kernels (jitgraph.backend_cpu.elemwise_codegen)" for name in (
                                 "make_alloc", "make_checks", "make_declare", "make_loop",
                                 "make_loop_careduce", "make_reordered_loop")}, globals())

__all__: list = []
