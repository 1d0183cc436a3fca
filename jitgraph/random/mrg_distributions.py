"""The distributions of ``MRG_RandomStreams`` other than ``uniform``, built from uniform draws.

* ``normal``: Box-Muller on an even number of uniform numbers (the first half are the radii's,
  the second half the angles'), ``z0 = r cos(theta)`` followed by ``z1 = r sin(theta)``, the last
  sample dropped for an odd count; ``truncate=True`` redraws samples outside [-2, 2]
  (:mod:`.truncation`); ``truncated_normal`` also divides ``std`` by the standard deviation of
  the truncated distribution, so that the samples have the ``std`` asked for.
* ``binomial`` (n=1): ``uniform < p``.
* ``multinomial`` / ``choice``: :mod:`.multinomial` on a vector of uniform numbers.

The uniform numbers of ``normal`` come from a draw of symbolic size, hence from
:data:`~.mrg_streams.MAX_STREAMS` streams unless ``nstreams`` is given, as in Theano.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.random.multinomial import ChoiceFromUniform, MultinomialFromUniform
from jitgraph.random.muladd import mul_add
from jitgraph.random.truncation import outside, truncated_pack
from jitgraph.tensor.core.grad_ops import undefined_grad
from jitgraph.tensor import (NotScalarConstantError, as_tensor_variable, cast, cos,
                             get_scalar_constant_value, join, log, lt, prod, reshape, sin, sqrt,
                             sum as tsum)
from jitgraph.tensor.core import dtypes

#: the standard deviation of a standard normal truncated to [-2, 2]
TRUNCATED_STD = 0.87962566103423978


class DistributionsMixin:
    """``normal``, ``truncated_normal``, ``binomial``, ``multinomial``, ``choice`` and
    ``multinomial_wo_replacement`` for a class with ``uniform`` (``MRG_RandomStreams``)."""

    def uniform(self, size: Any, low: Any = 0.0, high: Any = 1.0, ndim: int | None = None,
                dtype: str | None = None, nstreams: int | None = None, **kwargs: Any
                ) -> Variable:
        raise NotImplementedError

    def normal(self, size: Any, avg: Any = 0.0, std: Any = 1.0, ndim: int | None = None,
               dtype: str | None = None, nstreams: int | None = None, truncate: bool = False,
               **kwargs: Any) -> Variable:
        """Normal numbers with mean ``avg`` and standard deviation ``std`` (by Box-Muller);
        with ``truncate``, samples beyond two standard deviations are drawn again."""
        from jitgraph.random.mrg_streams import check_normal_size, size_vector

        size = check_normal_size(size)
        avg, std = as_tensor_variable(avg), as_tensor_variable(std)
        standard = _is_constant(avg, 0) and _is_constant(std, 1)
        avg, std = undefined_grad(avg), undefined_grad(std)
        if dtype is None:
            dtype = dtypes.upcast(dtypes.floatx(), avg.dtype, std.dtype)
        avg, std = cast(avg, dtype), cast(std, dtype)
        known = isinstance(size, tuple) and all(_is_int(s) for s in size)
        if known:
            n_odd: Any = int(np.prod(size, dtype=np.int64))
            n_even: Any = n_odd + n_odd % 2
            uniform_size: Any = as_tensor_variable(np.asarray([n_even], dtype=np.int64))
        else:
            n_odd = prod(size_vector(size), dtype="int64")
            n_even = n_odd + n_odd % 2
            uniform_size = (n_even,)
        u = self.uniform(uniform_size, low=0.0, high=1.0, ndim=1, dtype=dtype,
                         nstreams=nstreams, **kwargs)
        half = n_even // 2
        u1, u2 = u[:half], u[half:]
        r = sqrt(-2.0 * log(u1))
        theta = as_tensor_variable(np.asarray(2.0 * np.pi, dtype=dtype)) * u2
        cos_theta, sin_theta = cos(theta), sin(theta)
        z0, z1 = r * cos_theta, r * sin_theta
        if truncate:
            samples = self._redraw_outside(z0, z1, cos_theta, sin_theta, dtype, nstreams,
                                           kwargs)
        else:
            samples = join(0, z0, z1)
        if not known:
            samples = samples[:n_odd]
        elif n_odd % 2 == 1:
            samples = samples[:-1]
        samples = reshape(samples, size_vector(size), ndim=ndim if ndim is not None
                          else (len(size) if isinstance(size, tuple) else None))
        if standard:
            return samples
        return mul_add(samples, std, avg)

    def _redraw_outside(self, z0: Variable, z1: Variable, cos_theta: Variable,
                        sin_theta: Variable, dtype: str, nstreams: Any, kwargs: dict
                        ) -> Variable:
        n_fix = tsum(outside(z0), dtype="int64") + tsum(outside(z1), dtype="int64")
        lower = as_tensor_variable(np.asarray(1.0 / np.e ** 2, dtype=dtype))
        u_fix = self.uniform((n_fix,), low=lower, high=1.0, ndim=1, dtype=dtype,
                             nstreams=nstreams, **kwargs)
        r_fix = cast(sqrt(-2.0 * log(u_fix)), dtype)
        return truncated_pack(z0, z1, cos_theta, sin_theta, r_fix)

    def truncated_normal(self, size: Any, avg: Any = 0.0, std: Any = 1.0,
                         ndim: int | None = None, dtype: str | None = None,
                         nstreams: int | None = None, **kwargs: Any) -> Variable:
        """Normal numbers truncated to two standard deviations, scaled so that their standard
        deviation is ``std``."""
        std = as_tensor_variable(std) / as_tensor_variable(TRUNCATED_STD)
        return self.normal(size=size, avg=avg, std=std, ndim=ndim, dtype=dtype,
                           nstreams=nstreams, truncate=True, **kwargs)

    def binomial(self, size: Any = None, n: int = 1, p: Any = 0.5, ndim: int | None = None,
                 dtype: str = "int64", nstreams: int | None = None, **kwargs: Any) -> Variable:
        """Bernoulli draws (``n=1`` only): ``uniform < p``, as ``dtype``."""
        if "prob" in kwargs:
            p = kwargs.pop("prob")
            warnings.warn("MRG_RandomStreams.binomial 'prob' argument is deprecated and will be "
                          "removed in the next release of Theano. Please use 'p'.",
                          stacklevel=2)
        if n != 1:
            raise NotImplementedError("MRG_RandomStreams.binomial with n > 1")
        p = undefined_grad(as_tensor_variable(p))
        x = self.uniform(size=size, ndim=ndim, nstreams=nstreams, **kwargs)
        return cast(lt(x, p), dtype)

    def multinomial(self, size: Any = None, n: Any = 1, pvals: Any = None,
                    ndim: int | None = None, dtype: str = "int64", nstreams: int | None = None,
                    **kwargs: Any) -> Variable:
        """Counts of ``n`` draws from each row of ``pvals`` (a matrix), shaped like ``pvals``."""
        if pvals is None:
            raise TypeError("You have to specify pvals")
        pvals = undefined_grad(as_tensor_variable(pvals))
        if size is not None:
            if any(_is_int(s) and s <= 0 for s in size):
                raise ValueError("The specified size contains a dimension with value <= 0", size)
            raise ValueError("Provided a size argument to MRG_RandomStreams.multinomial, which "
                             "does not use the size argument.")
        if ndim is not None:
            raise ValueError("Provided an ndim argument to MRG_RandomStreams.multinomial, which "
                             "does not use the ndim argument.")
        if pvals.ndim != 2:
            raise NotImplementedError("MRG_RandomStreams.multinomial only implemented for "
                                      "pvals.ndim = 2")
        count = pvals[:, 0].shape * n
        unis = self.uniform(size=count, ndim=1, nstreams=nstreams, **kwargs)
        return MultinomialFromUniform(dtype)(pvals, unis, as_tensor_variable(n))

    def choice(self, size: Any = 1, a: Any = None, replace: bool = True, p: Any = None,
               ndim: int | None = None, dtype: str = "int64", nstreams: int | None = None,
               **kwargs: Any) -> Variable:
        """``size`` distinct outcomes per row of ``p`` (a matrix), without replacement (the
        only mode implemented, as in Theano: pass ``replace=False``)."""
        if replace:
            raise NotImplementedError("MRG_RandomStreams.choice only works without replacement "
                                      "for now.")
        if a is not None:
            raise TypeError("For now, a has to be None in MRG_RandomStreams.choice. Sampled "
                            "values are between 0 and p.shape[1]-1")
        if p is None:
            raise TypeError("For now, p has to be specified in MRG_RandomStreams.choice.")
        p = undefined_grad(as_tensor_variable(p))
        if ndim is not None:
            raise ValueError("ndim argument to MRG_RandomStreams.choice is not used.")
        if p.ndim != 2:
            raise NotImplementedError("MRG_RandomStreams.choice is only implemented for "
                                      "p.ndim = 2")
        n_samples = as_tensor_variable(size)
        if n_samples.ndim != 0:
            raise TypeError(f"choice: size must be the number of samples per row (an int), got "
                            f"{size!r}")
        count = p[:, 0].shape * n_samples
        unis = self.uniform(size=count, ndim=1, nstreams=nstreams, **kwargs)
        return ChoiceFromUniform(odtype=dtype)(p, unis, n_samples)

    def multinomial_wo_replacement(self, size: Any = None, n: Any = 1, pvals: Any = None,
                                   ndim: int | None = None, dtype: str = "int64",
                                   nstreams: int | None = None, **kwargs: Any) -> Variable:
        """Deprecated in Theano: ``choice(size=n, p=pvals, replace=False)``."""
        warnings.warn("MRG_RandomStreams.multinomial_wo_replacement() is deprecated and will be "
                      "removed in the next release of Theano. Please use "
                      "MRG_RandomStreams.choice() instead.", stacklevel=2)
        if size is not None:
            raise ValueError("multinomial_wo_replacement takes no size: the number of samples "
                             "per row is n")
        return self.choice(size=n, a=None, replace=False, p=pvals, dtype=dtype,
                           nstreams=nstreams, ndim=ndim, **kwargs)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _is_constant(var: Variable, value: float) -> bool:
    try:
        return bool(get_scalar_constant_value(var) == value)
    except NotScalarConstantError:
        return False
