"""CuPy's functions over device arrays: ufuncs, joins, products (cuBLAS: NumPy here, counted),
reductions, memory overlap. Every operand must be a device array of the current device or a
scalar; NumPy arrays are refused as CuPy refuses them."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from emulated_cuda.arrays import (_check_current, _count, _new, _operand, current_device,
                                  ndarray)
from emulated_cuda.settings import STATS


def _dev(a: Any, what: str) -> np.ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"Unsupported type {type(a)} ({what} needs a cupy.ndarray)")
    _check_current(a)
    return a._a


def _ufunc(fn: Any) -> Any:
    def apply(*args: Any, out: Any = None, **kwargs: Any) -> ndarray:
        values = [_operand(a) for a in args]
        if not any(isinstance(a, ndarray) for a in args):
            raise TypeError(f"Unsupported type {type(args[0])}")
        result = np.asarray(fn(*values, **kwargs))
        if out is not None:
            _dev(out, fn.__name__)[...] = result
            _count(fn.__name__)
            return out
        return _new(result, current_device(), fn.__name__)

    apply.__name__ = fn.__name__
    return apply


for _name in ("log", "exp", "sqrt", "abs", "absolute", "negative", "tanh", "log1p", "expm1",
              "maximum", "minimum", "add", "subtract", "multiply", "divide", "true_divide",
              "power", "isnan", "isinf", "isfinite", "sign", "floor", "ceil", "where",
              "logical_and", "logical_or", "logical_not", "equal", "less", "greater"):
    globals()[_name] = _ufunc(getattr(np, _name))


def moveaxis(a: ndarray, source: Any, destination: Any) -> ndarray:
    return ndarray._wrap(np.moveaxis(_dev(a, "moveaxis"), source, destination), a._device)


def transpose(a: ndarray, axes: Any = None) -> ndarray:
    return a.transpose(axes)


def reshape(a: ndarray, shape: Any, order: str = "C") -> ndarray:
    return a.reshape(shape, order=order)


def ravel(a: ndarray) -> ndarray:
    return a.ravel()


def concatenate(arrays: Sequence[ndarray], axis: int = 0, out: Any = None, dtype: Any = None
                ) -> ndarray:
    return _new(np.concatenate([_dev(a, "concatenate") for a in arrays], axis=axis,
                               dtype=dtype), current_device(), "concatenate")


def stack(arrays: Sequence[ndarray], axis: int = 0) -> ndarray:
    return _new(np.stack([_dev(a, "stack") for a in arrays], axis=axis), current_device(),
                "stack")


def take(a: ndarray, indices: Any, axis: Any = None) -> ndarray:
    return _new(np.take(_dev(a, "take"), _dev(indices, "take"), axis=axis), current_device(),
                "take")


def _blas(result: Any) -> ndarray:
    with STATS.lock:
        STATS.blas_calls += 1
    from emulated_cuda import memory

    return ndarray._wrap(memory.copy_in(np.asarray(result)), current_device())


def dot(a: ndarray, b: ndarray, out: Any = None) -> ndarray:
    return _blas(np.dot(_dev(a, "dot"), _dev(b, "dot")))


def matmul(a: ndarray, b: ndarray, out: Any = None) -> ndarray:
    return _blas(np.matmul(_dev(a, "matmul"), _dev(b, "matmul")))


def outer(a: ndarray, b: ndarray, out: Any = None) -> ndarray:
    return _blas(np.outer(_dev(a, "outer"), _dev(b, "outer")))


def _reduction(name: str) -> Any:
    def reduce(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> ndarray:
        kwargs: dict = {"axis": axis}
        if name not in ("argmax", "argmin"):
            kwargs["keepdims"] = keepdims
            if dtype is not None:
                kwargs["dtype"] = dtype
        return _new(np.asarray(getattr(np, name)(_dev(a, name), **kwargs)), current_device(),
                    name)

    reduce.__name__ = name
    return reduce


for _name in ("sum", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "any", "all",
              "mean"):
    globals()[_name] = _reduction(_name)


def may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    if not (isinstance(a, ndarray) and isinstance(b, ndarray)):
        return False
    return a._device == b._device and bool(np.may_share_memory(a._a, b._a))


def shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    if not (isinstance(a, ndarray) and isinstance(b, ndarray)):
        return False
    return a._device == b._device and bool(np.shares_memory(a._a, b._a))


def scatter_add(a: ndarray, slices: Any, value: Any) -> None:
    """cupyx.scatter_add: ``a[slices] += value`` accumulating repeated indices."""
    from emulated_cuda.arrays import _index

    key, _ = _index(slices, a._device)
    np.add.at(_dev(a, "scatter_add"), key, _operand(value))
    _count("scatter_add")
