"""Tensor types and variables, dtypes, conversion and constructors, the basic construction ops,
differentiation (``grad``, ``verify_grad``) and the op classes Theano exposed in
``theano.tensor``."""
