"""Theano's ``raw_random``: each function takes a ``RandomState`` variable and returns
``(new_state, sample)``; ``RandomStreamsBase`` turns them into ``RandomStreams`` methods.

Sizes: a tuple (its length is the sample's ndim; 1s are broadcastable), a symbolic vector
(with ``ndim`` when its length is not known), or None (the shape of the broadcast parameters).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.random.permute import permute_row_elements
from jitgraph.random.random_state import RandomStateType, random_state_type
from jitgraph.random.raw_op import RandomFunction, infer_ndim_bcast
from jitgraph.tensor import as_tensor_variable, constant
from jitgraph.tensor.core import dtypes
from jitgraph.tensor.core.type import TensorType


def _float_dtype(dtype: str | None, *params: Variable) -> str:
    if dtype is not None:
        return dtype
    return dtypes.upcast(dtypes.floatx(), *(p.dtype for p in params))


def uniform(random_state: Variable, size: Any = None, low: Any = 0.0, high: Any = 1.0,
            ndim: int | None = None, dtype: str | None = None) -> tuple[Variable, Variable]:
    """Uniform numbers in [low, high) (``RandomState.uniform``)."""
    low, high = as_tensor_variable(low), as_tensor_variable(high)
    dtype = _float_dtype(dtype, low, high)
    ndim, size, bcast = infer_ndim_bcast(ndim, size, low, high)
    return RandomFunction("uniform", TensorType(dtype, bcast))(random_state, size, low, high)


def normal(random_state: Variable, size: Any = None, avg: Any = 0.0, std: Any = 1.0,
           ndim: int | None = None, dtype: str | None = None) -> tuple[Variable, Variable]:
    """Normal numbers with mean ``avg`` and standard deviation ``std``."""
    avg, std = as_tensor_variable(avg), as_tensor_variable(std)
    dtype = _float_dtype(dtype, avg, std)
    ndim, size, bcast = infer_ndim_bcast(ndim, size, avg, std)
    return RandomFunction("normal", TensorType(dtype, bcast))(random_state, size, avg, std)


def binomial(random_state: Variable, size: Any = None, n: Any = 1, p: Any = 0.5,
             ndim: int | None = None, dtype: str = "int64", prob: Any = None
             ) -> tuple[Variable, Variable]:
    """Successes in ``n`` trials of probability ``p``."""
    if prob is not None:
        import warnings

        p = prob
        warnings.warn("The parameter prob to the binomal fct have been renamed to p to have "
                      "the same name as numpy.", stacklevel=2)
    n, p = as_tensor_variable(n), as_tensor_variable(p)
    ndim, size, bcast = infer_ndim_bcast(ndim, size, n, p)
    return RandomFunction("binomial", TensorType(dtype, bcast))(random_state, size, n, p)


def random_integers(random_state: Variable, size: Any = None, low: Any = 0, high: Any = 1,
                    ndim: int | None = None, dtype: str = "int64") -> tuple[Variable, Variable]:
    """Integers in [low, high], both ends included."""
    low, high = as_tensor_variable(low), as_tensor_variable(high)
    ndim, size, bcast = infer_ndim_bcast(ndim, size, low, high)
    return RandomFunction("random_integers", TensorType(dtype, bcast))(random_state, size, low,
                                                                        high)


def choice(random_state: Variable, size: Any = None, a: Any = 2, replace: Any = True,
           p: Any = None, ndim: int | None = None, dtype: str = "int64"
           ) -> tuple[Variable, Variable]:
    """Elements of ``a`` (or of ``range(a)``), with probabilities ``p`` (None: uniform)."""
    a = as_tensor_variable(a)
    if isinstance(replace, (bool, np.bool_)):
        replace = constant(np.int8(replace))
    # No probabilities (uniform) is an empty p; a plain false value (None, 0, [], as in
    # Theano's choice(rng, size, a, replace, 0)) means none.
    none = p is None or (isinstance(p, (bool, int, float, list, tuple)) and not p)
    p = as_tensor_variable(np.zeros(0, dtype=np.float64) if none else p)
    ndim, size, bcast = infer_ndim_bcast(ndim, size)
    return RandomFunction("choice", TensorType(dtype, bcast))(random_state, size, a, replace, p)


def poisson(random_state: Variable, size: Any = None, lam: Any = 1.0, ndim: int | None = None,
            dtype: str = "int64") -> tuple[Variable, Variable]:
    """Poisson counts of mean ``lam``."""
    lam = as_tensor_variable(lam)
    ndim, size, bcast = infer_ndim_bcast(ndim, size)
    return RandomFunction("poisson", TensorType(dtype, bcast))(random_state, size, lam)


def permutation(random_state: Variable, size: Any = None, n: Any = 1, ndim: int | None = None,
                dtype: str = "int64") -> tuple[Variable, Variable]:
    """A permutation of ``range(n)`` per index of ``size``: shape ``size + (n,)``."""
    if size is None or (isinstance(size, (tuple, list)) and len(size) == 0):
        if ndim not in (None, 1):
            raise TypeError("You asked for just one permutation but asked for more then 1 "
                            "dimensions.")
        size_vec, bcast = as_tensor_variable(np.zeros(0, dtype=np.int64)), ()
    else:
        _, size_vec, bcast = infer_ndim_bcast(ndim, size)
    op = RandomFunction("permutation", TensorType(dtype, bcast + (False,)), ndim_added=1)
    return op(random_state, size_vec, as_tensor_variable(n))


def multinomial(random_state: Variable, size: Any = None, n: Any = 1, pvals: Any = (0.5, 0.5),
                ndim: int | None = None, dtype: str = "int64") -> tuple[Variable, Variable]:
    """Counts of ``n`` trials over the outcomes of ``pvals`` (last axis) per index of
    ``size``: shape ``size + (outcomes,)``."""
    n = as_tensor_variable(n)
    pvals = as_tensor_variable(list(pvals) if isinstance(pvals, tuple) else pvals)
    rows = pvals[..., 0] if pvals.ndim > 1 else pvals[0]
    ndim, size, bcast = infer_ndim_bcast(ndim, size, n, rows)
    op = RandomFunction("multinomial", TensorType(dtype, bcast + (pvals.broadcastable[-1],)),
                        ndim_added=1)
    return op(random_state, size, n, pvals)


class RandomStreamsBase:
    """The distribution methods of ``RandomStreams``; subclasses define ``gen(op, *args)``."""

    def gen(self, op: Any, *args: Any, **kwargs: Any) -> Variable:
        raise NotImplementedError

    def uniform(self, size: Any = None, low: Any = 0.0, high: Any = 1.0,
                ndim: int | None = None, dtype: str | None = None) -> Variable:
        """Uniform numbers in [low, high)."""
        return self.gen(uniform, size, low, high, ndim=ndim, dtype=dtype)

    def normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0,
               ndim: int | None = None, dtype: str | None = None) -> Variable:
        """Normal numbers with mean ``avg`` and standard deviation ``std``."""
        return self.gen(normal, size, avg, std, ndim=ndim, dtype=dtype)

    def binomial(self, size: Any = None, n: Any = 1, p: Any = 0.5, ndim: int | None = None,
                 dtype: str = "int64", prob: Any = None) -> Variable:
        """Successes in ``n`` trials of probability ``p``."""
        if prob is not None:
            p = prob
        return self.gen(binomial, size, n, p, ndim=ndim, dtype=dtype)

    def random_integers(self, size: Any = None, low: Any = 0, high: Any = 1,
                        ndim: int | None = None, dtype: str = "int64") -> Variable:
        """Integers in [low, high]."""
        return self.gen(random_integers, size, low, high, ndim=ndim, dtype=dtype)

    def choice(self, size: Any = None, a: Any = 2, replace: Any = True, p: Any = None,
               ndim: int | None = None, dtype: str = "int64") -> Variable:
        """Elements of ``a`` (or ``range(a)``), with or without replacement."""
        return self.gen(choice, size, a, replace, p, ndim=ndim, dtype=dtype)

    def poisson(self, size: Any = None, lam: Any = None, ndim: int | None = None,
                dtype: str = "int64") -> Variable:
        """Poisson counts of mean ``lam``."""
        return self.gen(poisson, size, lam, ndim=ndim, dtype=dtype)

    def permutation(self, size: Any = None, n: Any = 1, ndim: int | None = None,
                    dtype: str = "int64") -> Variable:
        """Permutations of ``range(n)``, one per index of ``size``."""
        return self.gen(permutation, size, n, ndim=ndim, dtype=dtype)

    def multinomial(self, size: Any = None, n: Any = 1, pvals: Any = (0.5, 0.5),
                    ndim: int | None = None, dtype: str = "int64") -> Variable:
        """Multinomial counts, one draw per index of ``size``."""
        return self.gen(multinomial, size, n, pvals, ndim=ndim, dtype=dtype)

    def shuffle_row_elements(self, input: Any) -> Variable:  # noqa: A002 - Theano's name
        """``input`` with the elements of each row (last axis) in a random order."""
        input = as_tensor_variable(input)  # noqa: A001
        perm = self.permutation(size=input.shape[:-1], n=input.shape[-1], ndim=input.ndim - 1)
        return permute_row_elements(input, perm)


__all__ = ["RandomFunction", "RandomStateType", "RandomStreamsBase", "random_state_type", "binomial", "choice", "multinomial",
           "normal", "permutation", "poisson", "random_integers", "uniform"]
