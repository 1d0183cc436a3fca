"""Reverse-mode differentiation (``grad``) and the numeric gradient check (``verify_grad``)."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.graph.basic import Variable, graph_inputs, io_toposort
from jitgraph.tensor import dtypes as dt
from jitgraph.tensor.conversion import as_tensor_variable, constant


class DisconnectedInputError(ValueError):
    """``grad`` was asked for the gradient of a variable the cost does not depend on."""


class GradientError(AssertionError):
    """``verify_grad`` found an analytic gradient that disagrees with the numeric one."""

    def __init__(self, arg: int, abs_err: float, rel_err: float, abs_tol: float,
                 rel_tol: float) -> None:
        super().__init__(
            f"gradient of input {arg} disagrees with finite differences: max abs error "
            f"{abs_err:.3g} (tolerance {abs_tol:.3g}), max rel error {rel_err:.3g} "
            f"(tolerance {rel_tol:.3g})")
        self.arg, self.abs_err, self.rel_err = arg, abs_err, rel_err


def grad(cost: Any, wrt: Any, consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", add_names: bool = True,
         known_grads: dict | None = None, return_disconnected: str = "zero",
         null_gradients: str = "raise") -> Any:
    """Symbolic gradient of the scalar ``cost`` with respect to ``wrt`` (a variable or a list).

    ``consider_constant`` variables block the gradient; ``known_grads`` maps variables to
    gradients supplied by the caller (then ``cost`` may be None). ``disconnected_inputs``
    ('raise', 'warn', 'ignore') says what to do when ``cost`` does not depend on a ``wrt``.
    """
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError("disconnected_inputs must be 'raise', 'warn' or 'ignore'")
    single = not isinstance(wrt, (list, tuple))
    wrt_list = [wrt] if single else list(wrt)
    for w in wrt_list:
        if not isinstance(w, Variable):
            raise TypeError(f"grad expects variables in wrt, got {type(w).__name__}")
    seeds = _initial_gradients(cost, known_grads)
    blocked = set(consider_constant or ())
    contributions = _backpropagate(seeds, wrt_list, blocked)
    results = [_finish(w, contributions.get(w), cost, disconnected_inputs,
                       return_disconnected, add_names) for w in wrt_list]
    return results[0] if single else results


def _initial_gradients(cost: Any, known_grads: dict | None) -> dict[Variable, Variable]:
    seeds: dict[Variable, Variable] = {}
    for var, g in (known_grads or {}).items():
        seeds[var] = as_tensor_variable(g)
    if cost is not None:
        cost = as_tensor_variable(cost)
        if cost.ndim != 0:
            raise TypeError(f"cost must be a scalar (0-d), got {cost.type}; take .sum() or "
                            ".mean() first, or pass known_grads")
        if cost not in seeds:
            one_dtype = cost.dtype if not dt.is_discrete(cost.dtype) else dt.floatx()
            seeds[cost] = constant(np.ones((), dtype=one_dtype))
    if not seeds:
        raise ValueError("grad needs a cost or known_grads")
    return seeds


def _backpropagate(seeds: dict[Variable, Variable], wrt: list[Variable],
                   blocked: set[Variable]) -> dict[Variable, list[Variable]]:
    outputs = list(seeds)
    order = io_toposort(graph_inputs(outputs), outputs)
    depends = set(wrt) - blocked
    for node in order:
        if any(i in depends and i not in blocked for i in node.inputs):
            depends.update(o for o in node.outputs if o not in blocked)
    contributions: dict[Variable, list[Variable]] = {v: [g] for v, g in seeds.items()}
    for node in reversed(order):
        if not any(o in contributions for o in node.outputs):
            continue
        if not any(i in depends and i not in blocked for i in node.inputs):
            continue
        output_grads = [_total(contributions[o]) if o in contributions else _zeros_for(o)
                        for o in node.outputs]
        input_grads = node.op.L_op(node.inputs, node.outputs, output_grads)
        if len(input_grads) != len(node.inputs):
            raise ValueError(f"{node.op}.grad returned {len(input_grads)} gradients for "
                             f"{len(node.inputs)} inputs")
        for inp, g in zip(node.inputs, input_grads):
            if g is None or inp in blocked or inp not in depends:
                continue
            g = as_tensor_variable(g)
            if g.ndim != inp.ndim:
                raise ValueError(f"{node.op}.grad returned a {g.ndim}-d gradient for the "
                                 f"{inp.ndim}-d input {inp}")
            contributions.setdefault(inp, []).append(g)
    return contributions


def _total(terms: list[Variable]) -> Variable:
    if len(terms) == 1:
        return terms[0]
    from jitgraph.tensor.math import add

    return add(*terms)


def _zeros_for(var: Variable) -> Variable:
    from jitgraph.tensor.math import second

    dtype = var.dtype if not dt.is_discrete(var.dtype) else dt.floatx()
    return second(var, constant(np.zeros((), dtype=dtype)))


def _finish(w: Variable, terms: list[Variable] | None, cost: Any, disconnected: str,
            return_disconnected: str, add_names: bool) -> Any:
    if terms is None:
        if not dt.is_discrete(getattr(w, "dtype", "float64")):
            msg = (f"grad was asked for the gradient with respect to {w}, which the cost does not "
                   "depend on (or depends on only through non-differentiable operations)")
            if disconnected == "raise":
                raise DisconnectedInputError(msg + "; pass disconnected_inputs='ignore' to get "
                                             "zeros instead")
            if disconnected == "warn":
                warnings.warn(msg, stacklevel=3)
        if return_disconnected == "None":
            return None
        return _zeros_for(w)
    g = _total(terms)
    if g.dtype != w.dtype and not dt.is_discrete(w.dtype):
        from jitgraph.tensor.math import cast

        g = cast(g, w.dtype)
    if add_names and g.name is None and getattr(cost, "name", None) and w.name:
        g.name = f"(d{cost.name}/d{w.name})"
    return g


# ---------------------------------------------------------------------------------------------
# Numeric check

_EPS = {"float64": 1e-6, "float32": 1e-3, "float16": 1e-1}
_TOL = {"float64": 1e-4, "float32": 1e-2, "float16": 1e-1}


def verify_grad(fun: Callable[..., Any], pt: Sequence[Any], n_tests: int = 2,
                rng: Any = None, eps: float | None = None, out_type: Any = None,
                abs_tol: float | None = None, rel_tol: float | None = None, mode: Any = None,
                cast_to_output_type: bool = False) -> None:
    """Check ``grad`` of ``fun`` at the point ``pt`` (a list of arrays) against central finite
    differences of a random projection of its output. Raises :class:`GradientError`.

    With ``mode`` None the graphs run on the NumPy reference evaluator; otherwise they are
    compiled with ``jitgraph.function(..., mode=mode)``.
    """
    from jitgraph.tensor.type import TensorType

    if not isinstance(rng, (np.random.Generator, np.random.RandomState)):
        rng = np.random.default_rng(rng)  # None or an int seed
    pt = [np.array(p) for p in pt]
    for i, p in enumerate(pt):
        if p.dtype.kind not in "fc":
            raise TypeError(f"verify_grad needs float inputs; input {i} has dtype {p.dtype}")
    inputs = [TensorType(p.dtype.name, [s == 1 for s in p.shape]).make_variable(f"input{i}")
              for i, p in enumerate(pt)]
    output = as_tensor_variable(fun(*inputs))
    evaluate_fn = _runner(inputs, [output], mode)
    out_value = np.asarray(evaluate_fn(pt)[0])
    worst_dtype = min((p.dtype.name for p in pt), key=lambda d: -_TOL.get(d, 1e-4))
    eps = eps if eps is not None else _EPS.get(worst_dtype, 1e-6)
    abs_tol = abs_tol if abs_tol is not None else _TOL.get(worst_dtype, 1e-4)
    rel_tol = rel_tol if rel_tol is not None else _TOL.get(worst_dtype, 1e-4)
    for _ in range(n_tests):
        projection = _random_like(rng, out_value)
        proj_const = constant(projection.astype(output.dtype if not dt.is_discrete(output.dtype)
                                                else "float64"))
        cost = (output * proj_const).sum()
        grads = grad(cost, inputs, disconnected_inputs="ignore")
        cost_fn = _runner(inputs, [cost], mode)
        grad_fn = _runner(inputs, grads, mode)
        analytic = [np.asarray(g) for g in grad_fn(pt)]
        numeric = _numeric_gradient(lambda vals: float(np.real(cost_fn(vals)[0])), pt, eps)
        for k, (a, n) in enumerate(zip(analytic, numeric)):
            abs_err = np.abs(a - n)
            rel_err = abs_err / np.maximum(np.abs(a) + np.abs(n), 1e-8)
            err = np.minimum(abs_err / abs_tol, rel_err / rel_tol)
            if err.size and np.max(err) > 1:
                raise GradientError(k, float(abs_err.max()), float(rel_err.max()), abs_tol,
                                    rel_tol)


def _random_like(rng: Any, value: np.ndarray) -> np.ndarray:
    if isinstance(rng, np.random.RandomState):
        return rng.rand(*value.shape) + 0.5
    return rng.random(value.shape) + 0.5


def _runner(inputs: list[Variable], outputs: list[Variable], mode: Any) -> Callable:
    if mode is None:
        from jitgraph.graph.evaluate import evaluate

        return lambda values: evaluate(outputs, dict(zip(inputs, values)))
    from jitgraph.compile.function import function

    fn = function(inputs, outputs, mode=mode, on_unused_input="ignore")
    return lambda values: fn(*values)


def _numeric_gradient(f: Callable[[list], float], pt: list[np.ndarray], eps: float
                      ) -> list[np.ndarray]:
    grads = []
    for i, p in enumerate(pt):
        g = np.zeros(p.shape, dtype="float64")
        for idx in np.ndindex(*p.shape):
            plus = [q.copy() for q in pt]
            minus = [q.copy() for q in pt]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (f(plus) - f(minus)) / (2 * eps)
        grads.append(g)
    return grads
