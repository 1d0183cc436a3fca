"""FunctionGraph: a mutable, self-contained graph with client lists, used by rewrites and linkers."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable, clone_get_equiv, io_toposort
from jitgraph.graph.as_string import as_string

#: the "node" recorded as client of a graph output
OUTPUT = "output"


class MissingInputError(ValueError):
    """A graph needs a variable that is neither an input nor a constant (Theano's
    ``theano.gof.MissingInputError``)."""


class InconsistencyError(Exception):
    """A change would break an invariant checked by a feature (e.g. inplace safety)."""


class Feature:
    """Listener attached to a FunctionGraph. Every hook is optional."""

    def on_attach(self, fgraph: "FunctionGraph") -> None: ...
    def on_detach(self, fgraph: "FunctionGraph") -> None: ...
    def on_import(self, fgraph: "FunctionGraph", node: Apply, reason: Any) -> None: ...
    def on_prune(self, fgraph: "FunctionGraph", node: Apply, reason: Any) -> None: ...
    def on_change_input(self, fgraph: "FunctionGraph", node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None: ...
    def validate(self, fgraph: "FunctionGraph") -> None: ...


class FunctionGraph:
    """The graph from ``inputs`` to ``outputs``, cloned by default so that rewriting it is safe.

    ``clients[var]`` lists ``(node, input_index)`` pairs using ``var``; a graph output is used by
    ``(OUTPUT, output_index)``.
    """

    #: the name of the function compiled from the graph (set by ``function``), if any
    name: str | None = None

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 features: Iterable[Feature] = (), clone: bool = True) -> None:
        if clone:
            equiv = clone_get_equiv(inputs, outputs, copy_inputs=True)
            inputs = [equiv[i] for i in inputs]
            outputs = [equiv[o] for o in outputs]
        self.inputs: list[Variable] = []
        self.outputs: list[Variable] = []
        self.apply_nodes: set[Apply] = set()
        self.variables: set[Variable] = set()
        self.clients: dict[Variable, list[tuple[Any, int]]] = {}
        self._features: list[Feature] = []
        self._hooks: dict[str, tuple] = {}  # event -> the features' hooks (execute_callbacks)
        self._order: list[Apply] | None = None
        for inp in inputs:
            if inp.owner is not None:
                raise ValueError(f"graph input {inp} is computed by {inp.owner.op}; "
                                 "inputs must be free variables")
            self._add_variable(inp)
            self.inputs.append(inp)
        for out in outputs:
            self.add_output(out, reason="init")
        for feature in features:
            self.attach_feature(feature)

    # -- structure ------------------------------------------------------------------------
    def _add_variable(self, var: Variable) -> None:
        if var not in self.variables:
            self.variables.add(var)
            self.clients.setdefault(var, [])

    def add_output(self, var: Variable, reason: Any = None) -> None:
        self.outputs.append(var)
        self.import_var(var, reason)
        self.clients[var].append((OUTPUT, len(self.outputs) - 1))

    def import_var(self, var: Variable, reason: Any = None) -> None:
        if var.owner is not None and var.owner not in self.apply_nodes:
            self.import_node(var.owner, reason)
        elif var.owner is None and not isinstance(var, Constant) and var not in self.variables:
            if not hasattr(var, "get_value") and var not in self.inputs:
                raise ValueError(f"{var} is needed but is not an input of the graph "
                                 "(missing input, or a variable from another graph)")
        self._add_variable(var)

    def import_node(self, node: Apply, reason: Any = None) -> None:
        new_nodes = io_toposort(self.variables, node.outputs)
        for n in new_nodes:
            if n in self.apply_nodes:
                continue
            for inp in n.inputs:
                self.import_var(inp, reason)
            self.apply_nodes.add(n)
            for out in n.outputs:
                self._add_variable(out)
            for i, inp in enumerate(n.inputs):
                self.clients[inp].append((n, i))
            self._order = None
            self.execute_callbacks("on_import", n, reason)

    def _remove_client(self, var: Variable, client: tuple[Any, int], reason: Any) -> None:
        clients = self.clients[var]
        clients.remove(client)
        # (a graph output has an OUTPUT client, so it is never pruned here)
        if clients or var.owner is None:
            return
        node = var.owner
        if node not in self.apply_nodes or any(self.clients[o] for o in node.outputs):
            return
        self.apply_nodes.discard(node)
        for out in node.outputs:
            self.variables.discard(out)
            del self.clients[out]
        self._order = None
        self.execute_callbacks("on_prune", node, reason)
        for i, inp in enumerate(node.inputs):
            self._remove_client(inp, (node, i), reason)

    def change_node_input(self, node: Any, i: int, new_var: Variable, reason: Any = None) -> None:
        """Make input ``i`` of ``node`` (or output ``i`` when ``node`` is OUTPUT) be ``new_var``."""
        if node == OUTPUT:
            old = self.outputs[i]
            if old is new_var:
                return
            self.outputs[i] = new_var
        else:
            old = node.inputs[i]
            if old is new_var:
                return
            if old.type != new_var.type:
                raise TypeError(f"cannot replace input {i} of {node.op}: type {old.type} "
                                f"-> {new_var.type}")
            node.inputs[i] = new_var
        self.import_var(new_var, reason)
        self.clients[new_var].append((node, i))
        self._order = None
        self._remove_client(old, (node, i), reason)
        self.execute_callbacks("on_change_input", node, i, old, new_var, reason)

    def replace(self, var: Variable, new_var: Variable, reason: Any = None,
                verbose: bool | None = None) -> None:
        """Replace every use of ``var`` by ``new_var`` (which must have the same type)."""
        if var is new_var:
            return
        if var.type != new_var.type:
            converted = var.type.convert_variable(new_var)
            if converted is None:
                raise TypeError(f"replacing {var} ({var.type}) by {new_var} ({new_var.type}): "
                                "types differ" + (f" (rewrite {reason})" if reason else ""))
            new_var = converted
        if var not in self.variables:
            return
        if verbose is None:
            verbose = config.optimizer_verbose
        if verbose:
            print(f"rewriting: rewrite {_reason_name(reason)} replaces {var.owner or var} "
                  f"of {var} with {new_var.owner or new_var} of {new_var}")
        for node, i in list(self.clients[var]):
            self.change_node_input(node, i, new_var, reason)

    def replace_all(self, pairs: Iterable[tuple[Variable, Variable]], reason: Any = None) -> None:
        for var, new_var in pairs:
            self.replace(var, new_var, reason)

    # -- features -------------------------------------------------------------------------
    def attach_feature(self, feature: Feature) -> None:
        if feature in self._features:
            return
        self._features.append(feature)
        self._hooks.clear()
        feature.on_attach(self)

    def remove_feature(self, feature: Feature) -> None:
        if feature in self._features:
            self._features.remove(feature)
            self._hooks.clear()
            feature.on_detach(self)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_hooks"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._hooks = {}

    @property
    def features(self) -> list[Feature]:
        return list(self._features)

    def execute_callbacks(self, name: str, *args: Any) -> None:
        hooks = self._hooks.get(name)
        if hooks is None:
            hooks = self._hooks[name] = self._find_hooks(name)
        for hook in hooks:
            hook(self, *args)

    def _find_hooks(self, name: str) -> tuple:
        """The features' ``name`` hooks, in attachment order, leaving out those that are the
        base class's no-op (a rewrite calls hooks tens of thousands of times)."""
        noop = getattr(Feature, name, None)
        hooks = []
        for feature in self._features:
            hook = getattr(feature, name, None)
            if hook is not None and getattr(hook, "__func__", None) is not noop:
                hooks.append(hook)
        return tuple(hooks)

    def validate(self) -> None:
        """Ask every feature whether the graph is still acceptable (raises InconsistencyError)."""
        for feature in self._features:
            feature.validate(self)

    # -- queries --------------------------------------------------------------------------
    def toposort(self, recompute: bool = False) -> list[Apply]:
        """Apply nodes in an order where each comes after the nodes computing its inputs (kept
        until the graph changes). ``recompute`` sorts again from the outputs whatever is kept:
        a check of the graph's structure (the rewrite phases' validity check) then leaves its
        sort to the next phase."""
        if self._order is None or recompute:
            self._order = None
            self._order = io_toposort(self.inputs, self.outputs)
        return list(self._order)

    def get_clients(self, var: Variable) -> list[tuple[Any, int]]:
        return self.clients.get(var, [])

    def clone(self) -> "FunctionGraph":
        return self.clone_get_equiv()[0]

    def clone_get_equiv(self) -> tuple["FunctionGraph", dict]:
        equiv = clone_get_equiv(self.inputs, self.outputs, copy_inputs=True)
        fg = FunctionGraph([equiv[i] for i in self.inputs], [equiv[o] for o in self.outputs],
                           clone=False)
        if hasattr(self, "update_mapping"):  # positions: the same in the copy
            fg.update_mapping = dict(self.update_mapping)
        return fg, equiv

    def check_integrity(self) -> None:
        """Assert the client lists and node sets agree with the graph structure."""
        nodes = set(io_toposort(self.inputs, self.outputs))
        if nodes != self.apply_nodes:
            raise AssertionError("apply_nodes is out of sync with the graph")
        for node in nodes:
            for i, inp in enumerate(node.inputs):
                if (node, i) not in self.clients.get(inp, []):
                    raise AssertionError(f"missing client ({node}, {i}) of {inp}")

    def __str__(self) -> str:
        """Theano's text: ``[Op4(z, y)]``, each output written as the computation it is."""
        return f"[{', '.join(as_string(self.inputs, self.outputs))}]"


def _reason_name(reason: Any) -> str:
    return getattr(reason, "name", None) or getattr(reason, "__name__", None) or str(reason)
