"""Checking symbolic gradients against finite differences: ``verify_grad``, ``numeric_grad``
and the :class:`GradientError` they report."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from jitgraph import services
from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.core.gradient import grad
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast


class GradientError(Exception):
    """The analytic gradient disagrees with the numeric one: at flat position ``err_pos`` of
    argument ``arg`` (of shape ``shape``) the values are ``val1`` (analytic) and ``val2``
    (numeric)."""

    def __init__(self, arg: int, err_pos: int, shape: tuple, val1: float, val2: float,
                 abs_err: float, rel_err: float, abs_tol: float, rel_tol: float) -> None:
        super().__init__()
        self.arg, self.err_pos, self.shape = arg, err_pos, shape
        self.val1, self.val2 = val1, val2
        self.abs_err, self.rel_err = abs_err, rel_err
        self.abs_tol, self.rel_tol = abs_tol, rel_tol

    def __str__(self) -> str:
        extra = "".join(f"\n{a}" for a in self.args)
        return ("GradientError: numeric gradient and analytic gradient exceed tolerance:\n"
                f"        At position {self.err_pos} of argument {self.arg} with shape "
                f"{self.shape},\n"
                f"            val1 = {self.val1:f}, val2 = {self.val2:f}\n"
                f"            abs. error = {self.abs_err:f}, abs. tolerance = "
                f"{self.abs_tol:f}\n"
                f"            rel. error = {self.rel_err:f}, rel. tolerance = "
                f"{self.rel_tol:f}" + extra)


class numeric_grad:  # Theano's name
    """Forward-difference gradient of ``f`` (arrays -> scalar) at ``pt`` (an array or a list
    of arrays): ``gf`` holds one array per input (a single array for a single input).

    The inputs are converted to their common dtype, and each element is perturbed by ``eps``
    (default: the largest of ``type_eps`` over the input dtypes); ``out_type`` is the dtype of
    the gradients (complex types allow complex ``f``).
    """

    type_eps = {"float64": 1e-7, "float32": 3e-4, "float16": 1e-1,
                np.dtype("float64"): 1e-7, np.dtype("float32"): 3e-4,
                np.dtype("float16"): 1e-1}

    def __init__(self, f: Callable[..., Any], pt: Any, eps: float | None = None,
                 out_type: str | None = None) -> None:
        single = not isinstance(pt, (list, tuple))
        points = [np.array(p) for p in ([pt] if single else pt)]
        for k, p in enumerate(points):
            if p.dtype not in self.type_eps:
                raise TypeError(f"numeric_grad: input {k} has dtype {p.dtype}; finite "
                                "differences need float inputs (float16, float32, float64)")
        if eps is None:
            eps = max(self.type_eps[p.dtype] for p in points)
        # Every input is perturbed and passed to f in the common (upcast) dtype.
        working = np.result_type(*[p.dtype for p in points])
        points = [p.astype(working) for p in points]
        out_dtype = out_type or working.name
        base = np.asarray(f(*points))
        grads = []
        for k, p in enumerate(points):
            g = np.zeros(p.shape, dtype=out_dtype)
            flat = p.reshape(-1)  # a view: perturbing it perturbs points[k]
            for i in range(flat.size):
                saved = flat[i].copy()
                flat[i] = saved + eps
                g.flat[i] = (np.asarray(f(*points)) - base) / eps
                flat[i] = saved
            grads.append(g)
        self.gf = grads[0] if single else grads

    @staticmethod
    def abs_rel_err(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(|a - b|, |a - b| / (|a| + |b|))`` (relative error 0 where both are 0)."""
        abs_err = np.abs(a - b)
        denom = np.abs(a) + np.abs(b)
        with np.errstate(invalid="ignore", divide="ignore"):
            rel_err = np.where(denom > 0, abs_err / np.where(denom > 0, denom, 1), 0.0)
        return abs_err, rel_err

    def abs_rel_errors(self, g_pt: Sequence[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The absolute and relative errors of the analytic gradients ``g_pt`` against
        ``gf``, one pair per input."""
        numeric = self.gf if isinstance(self.gf, list) else [self.gf]
        if len(g_pt) != len(numeric):
            raise ValueError("argument has wrong number of elements", len(g_pt))
        errors = []
        for k, (a, n) in enumerate(zip(g_pt, numeric)):
            a = np.asarray(a)
            if a.shape != n.shape:
                raise ValueError(f"argument element {k} has wrong shape "
                                 f"{(a.shape, n.shape)}")
            errors.append(self.abs_rel_err(a, n))
        return errors

    def max_err(self, g_pt: Sequence[Any], abs_tol: float, rel_tol: float
                ) -> tuple[int, int, float, float]:
        """``(argument, flat position, abs error, rel error)`` of the worst disagreement, the
        one with the largest ``min(abs_err / abs_tol, rel_err / rel_tol)``."""
        best = (-1.0, 0, 0, 0.0, 0.0)
        for k, (abs_err, rel_err) in enumerate(self.abs_rel_errors(g_pt)):
            if abs_err.size == 0:
                continue
            scaled = np.minimum(abs_err / abs_tol, rel_err / rel_tol).reshape(-1)
            pos = int(np.argmax(scaled))
            if scaled[pos] > best[0]:
                best = (float(scaled[pos]), k, pos, float(abs_err.flat[pos]),
                        float(rel_err.flat[pos]))
        return best[1], best[2], best[3], best[4]


# ---------------------------------------------------------------------------------------------
# verify_grad

_EPS = {"float64": 1e-6, "float32": 1e-3, "float16": 1e-1}
_TOL = {"float64": 1e-4, "float32": 1e-2, "float16": 1e-1}


def verify_grad(fun: Callable[..., Any], pt: Sequence[Any], n_tests: int = 2,
                rng: Any = None, eps: float | None = None, out_type: Any = None,
                abs_tol: float | None = None, rel_tol: float | None = None, mode: Any = None,
                cast_to_output_type: bool = False, no_debug_ref: bool = True) -> None:
    """Check ``grad`` of ``fun`` at the point ``pt`` (a list of arrays) against central finite
    differences of a random projection of its output. Raises :class:`GradientError`.

    ``rng`` is a RandomState, a Generator, ``numpy.random`` itself (its global generator, as
    Theano's tests pass it), an int seed or None. With ``mode`` None the graphs
    run on the NumPy reference evaluator; otherwise they are compiled with
    ``jitgraph.function(..., mode=mode)``. (``no_debug_ref`` is accepted for Theano's
    signature; there is no separate reference run to skip.)
    """
    if not isinstance(pt, (list, tuple)):
        raise TypeError("verify_grad: pt must be a list of numpy arrays (one per input of fun)")
    if not (isinstance(rng, (np.random.Generator, np.random.RandomState)) or rng is np.random):
        rng = np.random.default_rng(rng)
    pt = [np.array(p) for p in pt]
    for i, p in enumerate(pt):
        if p.dtype.kind not in "fc":
            raise TypeError(f"verify_grad can work only with floating point inputs, but input "
                            f"{i} has dtype \"{p.dtype}\".")
    inputs = [TensorType(p.dtype.name, [s == 1 for s in p.shape]).make_variable(f"input{i}")
              for i, p in enumerate(pt)]
    output = fun(*inputs)
    if isinstance(output, (list, tuple)):
        raise NotImplementedError("cant (yet) autotest gradient of fun with multiple outputs")
    output = as_tensor_variable(output)
    out_value = np.asarray(_runner(inputs, [output], mode)(pt)[0])
    worst_dtype = min((p.dtype.name for p in pt), key=lambda d: -_TOL.get(d, 1e-4))
    eps = eps if eps is not None else _EPS.get(worst_dtype, 1e-6)
    abs_tol = abs_tol if abs_tol is not None else _TOL.get(worst_dtype, 1e-4)
    rel_tol = rel_tol if rel_tol is not None else _TOL.get(worst_dtype, 1e-4)
    for _ in range(n_tests):
        projection = _random_like(rng, out_value)
        cost = (_widened(output) * constant(projection.astype(_wide_dtype(output)))).sum()
        grads = grad(cost, inputs, disconnected_inputs="ignore")
        cost_fn = _runner(inputs, [cost], mode)
        analytic = [np.asarray(g) for g in _runner(inputs, grads, mode)(pt)]
        numeric = _central_differences(_scalar(cost_fn), pt, eps)
        checker = _Checker(numeric)
        arg, pos, abs_err, rel_err = checker.max_err(analytic, abs_tol, rel_tol)
        if abs_err > abs_tol and rel_err > rel_tol:
            error = GradientError(arg, pos, analytic[arg].shape,
                                  float(np.real(analytic[arg].flat[pos])),
                                  float(np.real(numeric[arg].flat[pos])), abs_err, rel_err,
                                  abs_tol, rel_tol)
            error.args += (f"The error happened with the following inputs: {pt}",
                           f"The value of eps is: {eps}", f"The out_type is: {out_type}")
            raise error


def _wide_dtype(output: Variable) -> str:
    return output.dtype if output.dtype in ("float64", "complex128") else \
        "complex128" if dt.is_complex(output.dtype) else "float64"


def _widened(output: Variable) -> Variable:
    """The output projected in double precision: a float32 sum of a few hundred terms rounds
    at ~1e-5 of its size, which finite differences over eps=1e-3 turn into gradient errors
    of the order of the float32 tolerance (1e-2); the output itself keeps its dtype."""
    wide = _wide_dtype(output)
    return output if output.dtype == wide else cast(output, wide)


class _Checker(numeric_grad):
    """numeric_grad's error measures over gradients computed elsewhere."""

    def __init__(self, numeric: list[np.ndarray]) -> None:  # (no differencing here)
        self.gf = numeric


def _scalar(fn: Callable) -> Callable[[list], float]:
    return lambda values: float(np.real(fn(values)[0]))


def _random_like(rng: Any, value: np.ndarray) -> np.ndarray:
    if isinstance(rng, np.random.RandomState) or rng is np.random:
        return np.asarray(rng.rand(*value.shape) + 0.5)  # rand() of no dims is a float
    return rng.random(value.shape) + 0.5


def _runner(inputs: list[Variable], outputs: list[Variable], mode: Any) -> Callable:
    if mode is None:
        from jitgraph.graph.evaluate import evaluate

        return lambda values: evaluate(outputs, dict(zip(inputs, values)))
    fn = services.get("function")(inputs, outputs, mode=mode, on_unused_input="ignore")
    return lambda values: fn(*values)


def _central_differences(f: Callable[[list], float], pt: list[np.ndarray], eps: float
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


#: the exception a failed check raises, as Theano's ``verify_grad.E_grad`` (``except
#: verify_grad.E_grad`` in code written for Theano)
verify_grad.E_grad = GradientError  # type: ignore[attr-defined]
