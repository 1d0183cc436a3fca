"""``theano.gof.params_type``: ``ParamsType`` (:mod:`jitgraph.graph.c_code`) and the
``EnumType`` it is often combined with."""

from jitgraph.graph.c_code import ParamsType
from jitgraph.graph.enum_type import EnumList, EnumType

__all__ = ["ParamsType", "EnumType", "EnumList"]

from jitgraph.unavailable import unavailable_names  # noqa: E402

unavailable_names(__name__, {"Params": "the values of a ParamsType, which describes C-code op "
                             "parameters; jitgraph ops take Python parameters (their "
                             "__props__)"}, globals())
