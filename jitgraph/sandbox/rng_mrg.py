"""Theano's ``theano.sandbox.rng_mrg``: re-exports :mod:`jitgraph.random` (MRG31k3p streams,
the ``mrg_uniform`` op, the step-by-step helpers of :mod:`jitgraph.random.mrg_steps` and the
in-place rewrite of the draws)."""

from jitgraph.compile.function import function  # noqa: F401
from jitgraph.sandbox import multinomial  # noqa: F401
from jitgraph.compile.sharedvalue import shared  # noqa: F401
from jitgraph.config import config  # noqa: F401
from jitgraph.graph.basic import Apply, Variable  # noqa: F401
from jitgraph.graph.c_code import ParamsType  # noqa: F401
from jitgraph.graph.op import Op  # noqa: F401
from jitgraph.random.mrg31k3p import M1, M2  # noqa: F401
from jitgraph.random.mrg_op import MRGUniform as mrg_uniform  # noqa: F401
from jitgraph.random.mrg_op import MRGUniform as mrg_uniform_base  # noqa: F401
from jitgraph.random.mrg_steps import (DotModulo, ff_2p72, ff_2p134, matVecModM,  # noqa: F401
                                       mrg_next_value, multMatVect)
from jitgraph.random.mrg_steps import (A1p72, A1p134, A2p72, A2p134, MASK2,  # noqa: F401
                                       MASK12, MASK13, MULT2, NORM, np_int32_vals)
from jitgraph.random.mrg_streams import MRG_RandomStreams, guess_n_streams  # noqa: F401
from jitgraph.random.rewrites import mrg_random_make_inplace  # noqa: F401
from jitgraph.tensor.grad_ops import undefined_grad  # noqa: F401
from jitgraph.rewrite.phases import optdb  # noqa: F401
from jitgraph.rewrite.theano_api import local_optimizer  # noqa: F401
from jitgraph.scalar.type import bool_ as bool_t  # noqa: F401
from jitgraph.scalar.type import int32 as int_t  # noqa: F401
from jitgraph.tensor.basic import get_vector_length  # noqa: F401
from jitgraph.tensor.conversion import as_tensor_variable  # noqa: F401
from jitgraph.tensor.math import cast  # noqa: F401
from jitgraph.tensor.type import TensorType  # noqa: F401

__all__ = ["MRG_RandomStreams", "guess_n_streams", "mrg_uniform", "mrg_uniform_base",
           "undefined_grad", "M1", "M2", "DotModulo", "ff_2p134", "ff_2p72", "matVecModM",
           "multMatVect", "mrg_next_value", "mrg_random_make_inplace", "A1p72", "A1p134",
           "A2p72", "A2p134", "MASK12", "MASK13", "MASK2", "MULT2", "NORM", "np_int32_vals",
           # Theano's module imported these for its own use; scripts reach them through it
           "Apply", "Op", "ParamsType", "TensorType", "Variable", "as_tensor_variable", "bool_t",
           "cast", "config", "function", "get_vector_length", "int_t", "local_optimizer",
           "multinomial", "optdb", "shared"]
