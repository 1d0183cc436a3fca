"""Helpers at Theano's ``theano.misc`` paths.

- :mod:`jitgraph.misc.pkl_utils`: saving objects (functions, shared variables, graphs, arrays)
  to a zip file with every array as its own ``.npy`` entry, and loading them back;
- :mod:`jitgraph.misc.may_share_memory`: whether two arrays or sparse matrices may overlap.

Nothing here is imported by ``import jitgraph``; import the module you need.
"""
