"""Theano's ``theano.tensor.raw_random``: re-exports :mod:`jitgraph.random.raw` (NumPy
``RandomState`` draws as graph ops), the NumPy helpers behind the draws whose parameters
broadcast (:mod:`jitgraph.random.raw_helpers`) and the in-place rewrite of the draws."""

from jitgraph.random.raw import *  # noqa: F401,F403
from jitgraph.random.raw import __all__ as _raw_all
from jitgraph.random.raw_helpers import (choice_helper, multinomial_helper,  # noqa: F401
                                         permutation_helper, random_integers_helper)
from jitgraph.random.rewrites import random_make_inplace  # noqa: F401
from jitgraph.rewrite.phases import optdb  # noqa: F401

__all__ = [*_raw_all, "choice_helper", "multinomial_helper", "permutation_helper",
           "random_integers_helper", "random_make_inplace", "optdb"]
