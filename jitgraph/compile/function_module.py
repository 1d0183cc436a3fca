"""Theano's ``theano.compile.function_module`` path: names re-exported from where they live."""

from jitgraph.compile.aliasing import (
                                       AliasedMemoryError,
                                       Supervisor,
                                       alias_root,
                                       infer_reuse_pattern,
                                       insert_deepcopy,
                                       view_tree_set,
)
from jitgraph.compile.checkers import check_equal, register_checker
from jitgraph.compile.function import Function, FunctionMaker, UnusedInputError
from jitgraph.compile.pfunc import orig_function
from jitgraph.compile.specs import (
                                       convert_function_input,
                                       fgraph_updated_vars,
                                       get_info_on_inputs,
                                       std_fgraph,
)

__all__ = ["AliasedMemoryError", "Supervisor", "alias_root", "infer_reuse_pattern",
           "insert_deepcopy", "view_tree_set", "check_equal", "register_checker", "Function",
           "FunctionMaker", "UnusedInputError", "orig_function", "convert_function_input",
           "fgraph_updated_vars", "get_info_on_inputs", "std_fgraph"]
