"""The Op base class: an operation with a NumPy reference ``perform``, hashable by its parameters.

An op's parameters are listed in ``__props__``; equality and hashing use them, so two ops with
equal parameters are interchangeable (merging, kernel caches and rewrites rely on it). An op
class defined outside jitgraph that declares no ``__props__`` compares by identity, as in Theano:
its instances may hold state that nothing describes, so no two of them may be merged or cached
as one (it prints as its class name, where Theano printed ``<module.Class object at 0x...>``).
A jitgraph op without ``__props__`` has no parameters (all its instances are equal) unless its
class sets ``compare_by_identity = True`` (OpFromGraph does).

Ops written for Theano 1.0 run unchanged (the "Extending Theano" contract):

* ``make_node`` may be left out when the class lists ``itypes`` and ``otypes``;
* ``infer_shape(node, input_shapes)`` (Theano) and ``infer_shape(fgraph, node, input_shapes)``
  (jitgraph) are both accepted, and both call forms work on every op;
* ``perform(node, inputs, output_storage, params)`` receives ``get_params(node)`` (or the
  ``params_type``'s parameters) when the op has them; ``prepare_node`` runs before the first
  ``perform`` of a node; an op implemented by ``make_thunk`` alone runs through it;
* ``R_op``, ``L_op``/``grad``, ``connection_pattern``, ``do_constant_folding``,
  ``view_map``/``destroy_map`` and ``default_output`` mean what they meant in Theano.

jitgraph's own ops are frozen after ``__init__`` (their hash cannot change under a cache); ops
defined outside jitgraph may set attributes later, as Theano allowed.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Sequence

from jitgraph.graph.basic import Apply, Variable, creation_trace
from jitgraph.graph.c_code import CCodeUnavailableError
from jitgraph.graph.type import Type

#: returned by :meth:`Op._params_of` when the op passes no ``params`` to ``perform``
NO_PARAMS = object()


class _OpMeta(type):
    """Freezes each op after ``__init__`` so that its hash cannot change under a cache."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        obj = super().__call__(*args, **kwargs)
        object.__setattr__(obj, "_frozen", True)
        return obj


def _positional_count(fn: Any) -> int | None:
    """Positional parameters of a plain function (self included); None for ``*args`` or a
    callable whose signature cannot be read cheaply."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_flags & 0x04:  # CO_VARARGS
        return None
    return code.co_argcount


def _adapt_infer_shape(fn: Callable) -> Callable:
    """``fn`` callable as ``(fgraph, node, shapes)`` and as Theano's ``(node, shapes)``."""
    count = _positional_count(fn)
    if count == 3:  # Theano 1.0: infer_shape(self, node, input_shapes)
        @functools.wraps(fn)
        def infer_shape(self: Any, *args: Any) -> Any:
            return fn(self, *args[-2:])
    elif count == 4:  # jitgraph: infer_shape(self, fgraph, node, input_shapes)
        @functools.wraps(fn)
        def infer_shape(self: Any, *args: Any) -> Any:
            return fn(self, None, *args) if len(args) == 2 else fn(self, *args)
    else:
        return fn
    infer_shape._adapted = True  # type: ignore[attr-defined]
    return infer_shape


def _adapt_perform(fn: Callable, prepares: bool) -> Callable:
    """``fn`` callable as ``perform(node, inputs, output_storage)`` by every backend, passing
    the op's ``params`` when ``fn`` takes them and running ``prepare_node`` once per node."""
    count = _positional_count(fn)
    takes_params = count is not None and count >= 5

    @functools.wraps(fn)
    def perform(self: Any, node: Apply, inputs: Sequence[Any], output_storage: list,
                *params: Any) -> Any:
        if prepares and node.__dict__.get("_prepared_for") is not self:
            self.prepare_node(node, None, None, "py")
            node.__dict__["_prepared_for"] = self
        if takes_params and not params:
            value = self._params_of(node)
            if value is not NO_PARAMS:
                return fn(self, node, inputs, output_storage, value)
        return fn(self, node, inputs, output_storage, *params)

    perform._adapted = True  # type: ignore[attr-defined]
    return perform


def _props_getter(names: Any) -> tuple[Any, Callable[[Any], tuple]]:
    """``(names, getter)``: ``getter(op)`` is the tuple of ``op``'s ``names`` attributes (one
    C call: ops are compared by their props every time a rewrite looks one up)."""
    fields = tuple(names)
    if not fields:
        return names, lambda op: ()
    if len(fields) == 1:
        one = operator.attrgetter(fields[0])
        return names, lambda op: (one(op),)
    return names, operator.attrgetter(*fields)


class Op(metaclass=_OpMeta):
    """Base class of graph operations.

    Subclasses define ``make_node`` (the type rule; or ``itypes``/``otypes``), ``perform`` (the
    NumPy reference every backend is tested against), and where differentiable ``grad`` (or
    ``L_op``) and ``R_op``. ``infer_shape`` lets rewrites compute output shapes without running
    the op.
    """

    __props__: tuple[str, ...] = ()
    #: output index -> list of input indices it overwrites
    destroy_map: dict[int, list[int]] = {}
    #: output index -> list of input indices it is a view of
    view_map: dict[int, list[int]] = {}
    default_output: int | None = None
    #: the input and output types of an op that does not define ``make_node``
    itypes: Sequence[Any] | None = None
    otypes: Sequence[Any] | None = None
    _frozen = False
    #: whether instances compare by identity (set per class, see the module docstring)
    compare_by_identity: bool = False
    #: set per class: instances compare by their ``__props__`` (not by identity)
    _props_declared = True
    #: set per class: jitgraph's own ops refuse every change after ``__init__``
    _strict_immutable = False
    #: ``(__props__, getter)`` for :meth:`_props` (set per class)
    _props_of = _props_getter(__props__)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._props_of = _props_getter(cls.__props__)
        if "compare_by_identity" not in cls.__dict__:
            declared = any("__props__" in k.__dict__ for k in cls.__mro__ if k is not Op)
            cls.compare_by_identity = not declared and not cls.__module__.startswith("jitgraph.")
        cls._props_declared = not cls.compare_by_identity
        cls._strict_immutable = cls.__module__.startswith("jitgraph.")
        own = cls.__dict__
        if "infer_shape" in own and not getattr(own["infer_shape"], "_adapted", False):
            cls.infer_shape = _adapt_infer_shape(own["infer_shape"])
        prepares = cls.prepare_node is not Op.prepare_node
        perform = own.get("perform")
        if perform is not None and not getattr(perform, "_adapted", False):
            count = _positional_count(perform)
            if prepares or (count is not None and count >= 5):
                cls.perform = _adapt_perform(perform, prepares)
        elif "prepare_node" in own and "perform" not in own \
                and cls.perform is not Op.perform:
            # prepare_node added below an inherited perform: that perform must now prepare
            cls.perform = _adapt_perform(getattr(cls.perform, "__wrapped__", cls.perform), True)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            if self._strict_immutable:
                raise AttributeError(f"{type(self).__name__} is immutable; build a new op "
                                     "instead")
            if name in self._prop_names():
                self.__dict__.pop("_hash", None)  # a user op changed a parameter (Theano allowed)
        object.__setattr__(self, name, value)

    # -- identity -------------------------------------------------------------------------
    def _prop_names(self) -> tuple[str, ...]:
        return tuple(self.__props__) if self._props_declared else ()

    def _props(self) -> tuple:
        """The values of ``__props__``, in order."""
        if not self._props_declared:
            return ()
        names, getter = self._props_of
        if names is not self.__props__:  # (``__props__`` set after the class was made)
            return tuple(getattr(self, p) for p in self.__props__)
        return getter(self)

    def _props_dict(self) -> dict[str, Any]:
        """``__props__`` as a dict ``{name: value}``."""
        return {p: getattr(self, p) for p in self._prop_names()}

    def __eq__(self, other: Any) -> bool:
        if not self._props_declared:
            return self is other
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        if not self._props_declared:
            return object.__hash__(self)
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((type(self), self._props()))
            object.__setattr__(self, "_hash", h)
        return h

    def __str__(self) -> str:
        if not self._props_declared or not self.__props__:
            return type(self).__name__
        params = ", ".join(f"{p}={getattr(self, p)!r}" for p in self.__props__)
        return f"{type(self).__name__}{{{params}}}"

    __repr__ = __str__

    def __reduce__(self) -> Any:
        if type(self).__getstate__ is not object.__getstate__:
            state = self.__getstate__()
        else:
            state = {k: v for k, v in self.__dict__.items()
                     if k not in ("_frozen", "_hash", "_prepared_for")}
        return (_rebuild_op, (type(self), state))

    # -- building -------------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """The Apply node of this op on ``inputs``; by default typed by ``itypes``/``otypes``."""
        if self.itypes is None or self.otypes is None:
            raise NotImplementedError(f"{type(self).__name__} defines neither make_node nor "
                                      "itypes and otypes")
        itypes = [_as_type(t, "itypes") for t in self.itypes]
        if len(inputs) != len(itypes):
            raise ValueError(f"{self} expects {len(itypes)} inputs, got {len(inputs)}")
        variables = [_as_input(self, k, value, t) for k, (value, t)
                     in enumerate(zip(inputs, itypes))]
        outputs = [_as_type(t, "otypes").make_variable() for t in self.otypes]
        return Apply(self, variables, outputs)

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        """Apply the op: its default output, its only output, or the list of its outputs
        (always a list with ``return_list=True``)."""
        return_list = kwargs.pop("return_list", False)
        node = self.make_node(*inputs, **kwargs)
        from jitgraph.graph.test_value import compute_test_values

        compute_test_values(node)

        trace = creation_trace()
        for out in node.outputs:
            out.tag.trace = trace
        if self.default_output is not None:
            out = node.outputs[self.default_output]
            return [out] if return_list else out
        if return_list:
            return list(node.outputs)
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    # -- evaluation -----------------------------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        """Compute the outputs with NumPy into ``output_storage[i][0]``."""
        if type(self).make_thunk is not Op.make_thunk:
            return _perform_through_thunk(self, node, inputs, output_storage)
        if hasattr(self, "c_code"):
            raise CCodeUnavailableError(
                f"{type(self).__name__} is implemented by c_code only; jitgraph has no C backend "
                "(it compiles through LLVM on the CPU and NVRTC on the GPU). Give the op a "
                "perform() method, or register a lowering for it with "
                "jitgraph.backend_cpu.lowering.registry.register_lowering")
        raise NotImplementedError(f"{type(self).__name__} has no perform")

    def make_thunk(self, node: Apply, storage_map: dict, compute_map: dict,
                   no_recycling: Sequence[Variable], impl: str | None = None) -> Callable:
        """A thunk running :meth:`perform` on the cells of ``storage_map`` (Theano's hook for
        ops that build their own implementation; override it instead of ``perform``)."""
        in_cells = [storage_map[v] for v in node.inputs]
        out_cells = [storage_map[v] for v in node.outputs]
        perform = self.perform

        def thunk() -> None:
            perform(node, [c[0] for c in in_cells], out_cells)
            for v in node.outputs:
                if compute_map is not None and v in compute_map:
                    compute_map[v][0] = True

        return thunk

    def prepare_node(self, node: Apply, storage_map: Any, compute_map: Any,
                     impl: str | None) -> None:
        """Called once per node before it first runs (set up what ``perform`` needs)."""

    def get_params(self, node: Apply) -> Any:
        """The ``params`` passed to ``perform``: by default what ``params_type`` (a type with a
        ``get_params(op)`` method, e.g. a ParamsType) extracts from the op."""
        params_type = getattr(self, "params_type", None)
        if params_type is not None and hasattr(params_type, "get_params"):
            return params_type.get_params(self)
        raise NotImplementedError(f"{type(self).__name__} has no params")

    def _params_of(self, node: Apply) -> Any:
        """``get_params(node)`` filtered by ``params_type`` (cached per node), or NO_PARAMS."""
        cached = node.__dict__.get("_params")
        if cached is not None and cached[0] is self:
            return cached[1]
        try:
            value = self.get_params(node)
        except NotImplementedError:
            value = NO_PARAMS
        params_type = getattr(self, "params_type", None)
        if value is not NO_PARAMS and params_type is not None and hasattr(params_type, "filter"):
            value = params_type.filter(value)
        node.__dict__["_params"] = (self, value)
        return value

    def do_constant_folding(self, node: Apply) -> bool:
        return True

    # -- differentiation ------------------------------------------------------------------
    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        raise NotImplementedError(f"{type(self).__name__} has no gradient")

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        """Gradient with access to the forward outputs; defaults to :meth:`grad`."""
        return self.grad(inputs, output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        """The Jacobian of each output times ``eval_points`` (None: no direction for that
        input); one variable (or None) per output."""
        raise NotImplementedError(f"{type(self).__name__} has no R_op; Rop cannot go through "
                                  "it (define R_op(inputs, eval_points) on the op)")

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``[i][j]`` is True when output ``j`` depends on input ``i``."""
        return [[True] * len(node.outputs) for _ in node.inputs]

    # -- shapes ---------------------------------------------------------------------------
    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        raise NotImplementedError(f"{type(self).__name__} has no infer_shape")

    infer_shape = _adapt_infer_shape(infer_shape)


def _as_type(t: Any, where: str) -> Any:
    """An entry of ``itypes``/``otypes`` as a Type (a variable constructor such as
    ``tensor.dmatrix`` stands for the type of the variables it makes)."""
    if isinstance(t, Type):
        return t
    if callable(t):
        made = t()
        if isinstance(made, Variable):
            return made.type
    raise TypeError(f"{where} must list types (e.g. tensor.dmatrix), got {t!r}")


def _as_input(op: Op, k: int, value: Any, itype: Any) -> Variable:
    var = value if isinstance(value, Variable) else itype.make_constant(value)
    if var.type == itype:
        return var
    converted = itype.convert_variable(var)
    if converted is None:
        raise TypeError(f"{op}: input {k} ({var}) has type {var.type}, expected {itype}")
    return converted


def _perform_through_thunk(op: Op, node: Apply, inputs: Sequence[Any],
                           output_storage: list[list[Any]]) -> None:
    """Run an op implemented by ``make_thunk`` on plain values."""
    storage = {v: [value] for v, value in zip(node.inputs, inputs)}
    compute = {v: [True] for v in node.inputs}
    for v, cell in zip(node.outputs, output_storage):
        storage[v] = cell
        compute[v] = [False]
    op.make_thunk(node, storage, compute, [], impl="py")()


def _rebuild_op(cls: type, state: Any) -> Op:
    obj = cls.__new__(cls)
    if hasattr(obj, "__setstate__"):
        obj.__setstate__(state)
    else:
        for k, v in state.items():
            object.__setattr__(obj, k, v)
    object.__setattr__(obj, "_frozen", True)
    return obj
