"""``theano.tests.unittest_tools`` (``utt``): the helpers Theano's "Extending Theano" guide uses to
test a new op -- seeded gradient checks, shape-inference checks, value comparisons that explain
themselves and assertions about which ops a compiled function contains.

    from jitgraph.tests import unittest_tools as utt

    class TestDoubleOp(utt.InferShapeTester):
        def test_infer_shape(self):
            x = T.matrix()
            self._compile_and_check([x], [double_op(x)], [np.random.rand(5, 6)], DoubleOp)

        def test_grad(self):
            utt.verify_grad(double_op, [np.random.rand(5, 7)])

Seeds come from the ``unittests.rseed`` flag (666 unless set; ``random`` for a fresh seed).
"""

from __future__ import annotations

import functools
import logging
import unittest
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.compile.function import function
from jitgraph.compile.mode import get_default_mode
from jitgraph.config import config
from jitgraph.gradient import GradientError, verify_grad as _verify_grad
from jitgraph.graph.op import Op
from jitgraph.tensor.elementwise import scalar_ops
from jitgraph.tensor.elementwise.math import elemwise_op

_logger = logging.getLogger("jitgraph.tests.unittest_tools")

__all__ = ["fetch_seed", "seed_rng", "verify_grad", "MockRandomState", "AttemptManyTimes",
           "InferShapeTester", "TestOptimizationMixin", "T_OpContractMixin", "WrongValue",
           "str_diagnostic", "assert_allclose", "assertFailure_fast"]


# -- seeds ------------------------------------------------------------------------------------

def fetch_seed(pseed: Any = None) -> int | None:
    """The seed a test should use: ``pseed`` if given, else the ``unittests.rseed`` flag; None
    for ``'random'`` (and, with a warning, for a value that is not an integer)."""
    seed = pseed if pseed is not None else config.unittests.rseed
    if seed == "random":
        return None
    try:
        return int(seed)
    except (TypeError, ValueError):
        _logger.warning("unittests.rseed should be an integer or 'random', got %r: "
                        "using a fresh random seed", seed)
        return None


def seed_rng(pseed: Any = None) -> int | None:
    """Seed NumPy's global generator with :func:`fetch_seed` and return the seed."""
    seed = fetch_seed(pseed)
    np.random.seed(seed)
    return seed


def verify_grad(op: Callable[..., Any], pt: Sequence[Any], n_tests: int = 2, rng: Any = None,
                *args: Any, **kwargs: Any) -> None:
    """:func:`jitgraph.gradient.verify_grad` with NumPy's global generator seeded by
    :func:`seed_rng` when no ``rng`` is given, so a failure repeats from run to run."""
    if rng is None:
        seed_rng()
        rng = np.random
    _verify_grad(op, pt, n_tests, rng, *args, **kwargs)


class MockRandomState:
    """A stand-in for ``numpy.random.RandomState`` whose draws are constant: ``rand`` gives
    ``val`` everywhere, ``randint`` the largest value of its range."""

    def __init__(self, val: float) -> None:
        self.val = val

    def rand(self, *shape: int) -> np.ndarray:
        return np.full(shape, self.val, dtype="float64")

    def randint(self, minval: int, maxval: int | None = None, size: Any = 1) -> np.ndarray:
        high = minval if maxval is None else maxval
        return np.full(size, high - 1, dtype="int64")


class AttemptManyTimes:
    """Decorator: the test passes when at least ``n_req_successes`` of ``n_attempts`` runs pass
    (for tests of random behaviour; a flaky test can also hide a real bug). Each attempt after
    the first runs with the next seed of ``unittests.rseed``."""

    def __init__(self, n_attempts: int, n_req_successes: int = 1) -> None:
        if not 0 < n_req_successes <= n_attempts:
            raise ValueError(f"AttemptManyTimes needs 0 < n_req_successes <= n_attempts, got "
                             f"n_attempts={n_attempts}, n_req_successes={n_req_successes}")
        self.n_attempts = n_attempts
        self.n_req_successes = n_req_successes

    def __call__(self, test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def attempts(*args: Any, **kwargs: Any) -> None:
            base = fetch_seed()
            successes, last_error = 0, None
            for attempt in range(self.n_attempts):
                config.unittests.rseed = "random" if base is None else str(base + attempt)
                try:
                    test(*args, **kwargs)
                    successes += 1
                    if successes == self.n_req_successes:
                        break
                except AssertionError as exc:
                    last_error = exc
                finally:
                    config.unittests.rseed = "random" if base is None else str(base)
            if successes < self.n_req_successes:
                raise AssertionError(f"{test.__name__} passed {successes} of {self.n_attempts} "
                                     f"attempts, {self.n_req_successes} needed; last failure: "
                                     f"{last_error}")

        return attempts


# -- comparing values -------------------------------------------------------------------------

def _describe(label: str, a: np.ndarray) -> str:
    finite = a[np.isfinite(a)] if a.dtype.kind in "fc" else a
    lo = finite.min() if finite.size else None
    hi = finite.max() if finite.size else None
    n_inf = int(np.isinf(a).sum()) if a.dtype.kind in "fc" else 0
    n_nan = int(np.isnan(a).sum()) if a.dtype.kind in "fc" else 0
    return f"  {label:<9}: {a.shape} {a.dtype} {a.strides} {lo} {hi} {n_inf} {n_nan}"


def str_diagnostic(expected: Any, value: Any, rtol: float | None, atol: float | None) -> str:
    """A report on two arrays that should be close: their shapes, dtypes, ranges, special
    values, and the absolute and relative differences."""
    exp, val = np.asarray(expected), np.asarray(value)
    lines = ["           : shape, dtype, strides, min, max, n_inf, n_nan:",
             _describe("Expected", exp), _describe("Value", val),
             f"  expected : {exp}", f"  value    : {val}"]
    try:
        abs_diff = np.abs(exp.astype("float64") - val.astype("float64"))
        rel_diff = abs_diff / np.maximum(np.abs(exp) + np.abs(val), 1e-8)
        for name, diff in (("Abs", abs_diff), ("Rel", rel_diff)):
            lines += [f"  Max {name} Diff: {np.max(diff)}", f"  Mean {name} Diff: {np.mean(diff)}",
                      f"  Median {name} Diff: {np.median(diff)}",
                      f"  Std {name} Diff: {np.std(diff)}"]
    except (TypeError, ValueError):  # shapes that do not broadcast, non-numeric arrays
        lines.append("  (the arrays cannot be subtracted)")
    lines.append(f"  rtol, atol: {rtol} {atol}")
    return "\n".join(lines)


class WrongValue(Exception):
    """Raised by :func:`assert_allclose`; its text is :func:`str_diagnostic`'s report."""

    def __init__(self, expected_val: Any, val: Any, rtol: float | None, atol: float | None):
        super().__init__(expected_val, val, rtol, atol)
        self.val1, self.val2, self.rtol, self.atol = expected_val, val, rtol, atol

    def __str__(self) -> str:
        return "WrongValue\n" + str_diagnostic(self.val1, self.val2, self.rtol, self.atol)


def assert_allclose(expected: Any, value: Any, rtol: float | None = None,
                    atol: float | None = None) -> None:
    """Raise :class:`WrongValue` unless ``value`` is close to ``expected`` (default tolerances:
    1e-5 relative / 1e-8 absolute, looser for float32 and float16 arrays)."""
    exp, val = np.asarray(expected), np.asarray(value)
    dtypes = {exp.dtype.name, val.dtype.name}
    default_rtol, default_atol = ((1e-3, 1e-3) if "float16" in dtypes else
                                  (1e-4, 1e-5) if "float32" in dtypes else (1e-5, 1e-8))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if exp.shape != val.shape or not np.allclose(exp, val, rtol=rtol, atol=atol):
        raise WrongValue(expected, value, rtol, atol)


def assertFailure_fast(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for a test expected to fail (an ``AssertionError``): it passes when the test
    fails and fails when it passes."""

    @functools.wraps(f)
    def expected_failure(*args: Any, **kwargs: Any) -> None:
        try:
            f(*args, **kwargs)
        except AssertionError:
            return
        raise AssertionError(f"{f.__name__} was expected to fail but passed")

    return expected_failure


# -- test case helpers ------------------------------------------------------------------------

def _as_op(op: Any) -> Any:
    """``T.exp`` is a function here (Theano's is an Elemwise object): its shared op."""
    if isinstance(op, Op) or isinstance(op, type):
        return op

    name = getattr(op, "__name__", None)
    if name and any(s.name == name for s in scalar_ops.all_scalar_ops()):
        return elemwise_op(name)
    return op


class TestOptimizationMixin:
    """Assertions on the ops in a compiled function's graph (``f.maker.fgraph``)."""

    __test__ = False  # a mixin, not a test case for pytest

    def _count(self, f: Any, op: Any, by_class: bool) -> tuple[int, list]:
        topo = f.maker.fgraph.toposort()
        if by_class:
            return sum(isinstance(n.op, op) for n in topo), topo
        target = _as_op(op)
        return sum(n.op == target for n in topo), topo

    def assertFunctionContains(self, f: Any, op: Any, min: int = 1,
                               max: int = np.iinfo(np.int64).max) -> None:
        count, topo = self._count(f, op, by_class=False)
        assert min <= count <= max, (f"the function contains {op} {count} time(s), expected "
                                     f"between {min} and {max}; its nodes: {topo}")

    def assertFunctionContains0(self, f: Any, op: Any) -> None:
        self.assertFunctionContains(f, op, min=0, max=0)

    def assertFunctionContains1(self, f: Any, op: Any) -> None:
        self.assertFunctionContains(f, op, min=1, max=1)

    def assertFunctionContainsN(self, f: Any, op: Any, N: int) -> None:
        self.assertFunctionContains(f, op, min=N, max=N)

    def assertFunctionContainsClass(self, f: Any, op: type, min: int = 1,
                                    max: int = np.iinfo(np.int64).max) -> None:
        count, topo = self._count(f, op, by_class=True)
        assert min <= count <= max, (f"the function contains {count} node(s) of class "
                                     f"{op.__name__}, expected between {min} and {max}; "
                                     f"its nodes: {topo}")

    def assertFunctionContainsClassN(self, f: Any, op: type, N: int) -> None:
        self.assertFunctionContainsClass(f, op, min=N, max=N)

    def SkipTest(self, msg: str = "Skip this test") -> None:
        raise unittest.SkipTest(msg)


class T_OpContractMixin:
    """Checks every op should pass: equal ops hash equal, copies and clones equal the original,
    ops listed in ``other_op`` differ and every op has a string name. A test case sets
    ``ops`` (a list of ops) and may set ``other_op``."""

    __test__ = False
    ops: list = []
    other_op: Any = None

    def copy(self, x: Any) -> Any:
        import copy

        return copy.copy(x)

    def deepcopy(self, x: Any) -> Any:
        import copy

        return copy.deepcopy(x)

    def clone(self, op: Any) -> Any:
        raise NotImplementedError("a test case that checks clones defines clone(op)")

    def test_eq(self) -> None:
        for i, op_i in enumerate(self.ops):
            assert op_i == op_i and op_i == self.copy(op_i) and op_i == self.deepcopy(op_i)
            assert op_i != self.other_op
            for j, op_j in enumerate(self.ops):
                assert (op_i == op_j) == (i == j), f"{op_i} and {op_j} should differ"

    def test_hash(self) -> None:
        for op in self.ops:
            assert hash(op) == hash(self.copy(op)) == hash(self.deepcopy(op))

    def test_name(self) -> None:
        for op in self.ops:
            assert isinstance(str(op), str) and str(op), f"{op!r} has no name"


class InferShapeTester(unittest.TestCase):
    """Base class for testing an op's ``infer_shape``: :meth:`_compile_and_check` compiles the
    outputs and their shapes, checks that the shapes are computed without running the op, and
    compares them with the shapes of the computed outputs."""

    def setUp(self) -> None:
        seed_rng()
        # canonicalize is what turns ``op(x).shape`` into the op's infer_shape graph
        self.mode = get_default_mode().including("canonicalize")

    def _compile_and_check(self, inputs: Sequence[Any], outputs: Sequence[Any],
                           numeric_inputs: Sequence[Any], cls: type,
                           excluding: Sequence[str] | None = None, warn: bool = True,
                           check_topo: bool = True) -> None:
        """Compare ``outputs``' inferred shapes with their computed shapes for the values
        ``numeric_inputs``; ``cls`` (the op's class) must appear in the outputs' graph and, when
        ``check_topo``, not in the shapes' graph. ``warn``: log when two dimensions of an input
        have the same size (a mix-up of those dimensions would go unnoticed)."""
        mode = self.mode.excluding(*excluding) if excluding else self.mode
        if warn:
            self._warn_on_repeated_sizes(cls, numeric_inputs)
        outputs_function = function(inputs, list(outputs), mode=mode)
        shapes_function = function(inputs, [o.shape for o in outputs], mode=mode)
        if check_topo:
            in_outputs = [n for n in outputs_function.maker.fgraph.toposort()
                          if isinstance(n.op, cls)]
            in_shapes = [n for n in shapes_function.maker.fgraph.toposort()
                         if isinstance(n.op, cls)]
            assert in_outputs, f"no {cls.__name__} node in the compiled outputs' graph"
            assert not in_shapes, (f"the shapes still run {cls.__name__} (its infer_shape is "
                                   f"missing or unused): {in_shapes}")
        values = outputs_function(*numeric_inputs)
        shapes = shapes_function(*numeric_inputs)
        for k, (value, shape) in enumerate(zip(values, shapes)):
            assert np.asarray(value).shape == tuple(shape), (
                f"output {k}: infer_shape gives {tuple(shape)}, the computed value has shape "
                f"{np.asarray(value).shape}")

    @staticmethod
    def _warn_on_repeated_sizes(cls: type, numeric_inputs: Sequence[Any]) -> None:
        for value in numeric_inputs:
            shape = getattr(value, "shape", ())
            if len(set(shape)) < len(shape):
                _logger.warning("testing the shape inference of %s with an input of shape %s: "
                                "dimensions of equal size cannot show whether infer_shape mixes "
                                "them up; prefer distinct sizes", cls.__name__, shape)


#: the exception a failed gradient check raises (Theano's ``utt.verify_grad.E_grad``)
verify_grad.E_grad = GradientError  # type: ignore[attr-defined]
