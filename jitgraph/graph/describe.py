"""Short textual descriptions of variables, for error messages and for comparing graphs.

* :func:`min_informative_str` -- an indented tree that stops at named variables and constants
  (``A. Elemwise{add,no_inplace}`` / ``  B. log_likelihood_h`` ...);
* :func:`var_descriptor` -- one line that fully specifies how a variable is computed and holds
  nothing that depends on memory addresses (equal for structurally equal graphs);
* :func:`position_independent_str` -- a variable without a name as ``theano_var{type=...}``;
* :func:`hex_digest` -- a SHA-256 digest of an ndarray's bytes annotated with its strides and
  shape.

The texts are those of Theano 1.0, so that tools comparing them keep working.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.graph.pprinter import node_op_str
from jitgraph.graph.printing import char_id


class _Tags:
    """Hands out the letters A, B, ..., Z, BA, ... and remembers them per object."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}

    def known(self, obj: Any) -> str | None:
        return self.seen.get(id(obj))

    def new(self, obj: Any) -> str:
        tag = char_id(len(self.seen))
        self.seen[id(obj)] = tag
        return tag


def min_informative_str(obj: Any, indent_level: int = 0, _prev_obs: dict | None = None,
                        _tag_generator: Any = None) -> str:
    """``obj`` as a tree that shows only what is needed to identify it: a named variable or a
    constant is a leaf, a computed variable shows its op and (indented one space further) its
    inputs. Each object gets a letter; an object met again prints as ``<A>``."""
    tags = _tag_generator if isinstance(_tag_generator, _Tags) else _Tags()
    if _prev_obs is not None:
        tags.seen = _prev_obs
    return _informative(obj, indent_level, tags)


def _informative(obj: Any, level: int, tags: _Tags) -> str:
    indent = " " * level
    seen = tags.known(obj)
    if seen is not None:
        return f"{indent}<{seen}>"
    tag = tags.new(obj)
    if hasattr(obj, "__array__"):
        text = "<ndarray>"
    elif getattr(obj, "name", None) is not None:
        text = obj.name
    elif getattr(obj, "owner", None) is not None:
        text = node_op_str(obj.owner)
        for inp in obj.owner.inputs:
            text += "\n" + _informative(inp, level + 1, tags)
    else:
        text = str(obj)
    return f"{indent}{tag}. {text}"


def var_descriptor(obj: Any, _prev_obs: dict | None = None, _tag_generator: Any = None) -> str:
    """One line fully specifying how ``obj`` is computed, with no memory-dependent part:
    ``A=Elemwise{add,no_inplace}(B=x,C=TensorConstant{1})``; an ndarray is described by its
    strides and a SHA-256 digest of its data. Names are used only for graph inputs, so naming an
    intermediate variable does not change the descriptor."""
    tags = _tag_generator if isinstance(_tag_generator, _Tags) else _Tags()
    if _prev_obs is not None:
        tags.seen = _prev_obs
    return _descriptor(obj, tags)


def _descriptor(obj: Any, tags: _Tags) -> str:
    seen = tags.known(obj)
    if seen is not None:
        return f"<{seen}>"
    tag = tags.new(obj)
    if hasattr(obj, "__array__"):
        array = np.asarray(obj)
        strides = ",".join(str(s) for s in array.strides)
        text = f"<ndarray:strides=[{strides}],digest={_sha256(array)}>"
    elif getattr(obj, "owner", None) is not None:
        inputs = ",".join(_descriptor(i, tags) for i in obj.owner.inputs)
        text = f"{node_op_str(obj.owner)}({inputs})"
    elif getattr(obj, "name", None) is not None:
        text = obj.name
    else:
        text = str(obj)
        if " at 0x" in text:  # the str shows the object's address
            text = position_independent_str(obj)
    return f"{tag}={text}"


def _sha256(array: np.ndarray) -> str:
    # the buffer as it lies in memory for C-contiguous data; otherwise its C-order copy
    data = array.data if array.flags.c_contiguous else array.tobytes()
    return hashlib.sha256(data).hexdigest()


def position_independent_str(obj: Any) -> str:
    """A variable as ``theano_var{type=<its type>}`` (no address)."""
    if isinstance(obj, Variable):
        return f"theano_var{{type={obj.type}}}"
    raise NotImplementedError(f"position_independent_str only describes graph variables, got "
                              f"a {type(obj).__name__}")


def hex_digest(x: np.ndarray) -> str:
    """``<sha256 of x's bytes>|strides=[...]|shape=[...]`` (the strides and shape say how the
    bytes form the array, so arrays with equal bytes but different layouts differ)."""
    if not isinstance(x, np.ndarray):
        raise TypeError(f"hex_digest expects a numpy.ndarray, got a {type(x).__name__}")
    digest = hashlib.sha256(x.tobytes()).hexdigest()
    strides = ",".join(str(s) for s in x.strides)
    shape = ",".join(str(s) for s in x.shape)
    return f"{digest}|strides=[{strides}]|shape=[{shape}]"


__all__ = ["min_informative_str", "var_descriptor", "position_independent_str", "hex_digest"]
