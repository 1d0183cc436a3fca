"""Device arrays: NumPy arrays in fenced memory, owned by one emulated device.

Like CuPy's, they refuse to become NumPy arrays implicitly (``numpy.asarray(x)`` raises
TypeError: use ``.get()``, which copies to the host and is counted), refuse NumPy array operands,
and compute only while their device is current. CuPy's own operations (copies, casts, indexing,
arithmetic) and cuBLAS products compute with NumPy and are counted by kind.
"""

from __future__ import annotations

import numbers
import operator
from typing import Any

import numpy as np

from emulated_cuda import devices, memory
from emulated_cuda.devices import CUDARuntimeError
from emulated_cuda.settings import STATS

IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly.")


def _count(name: str) -> None:
    with STATS.lock:
        STATS.builtin_ops[name] += 1


def _d2h(nbytes: int) -> None:
    with STATS.lock:
        STATS.device_to_host_bytes += int(nbytes)


def _h2d(nbytes: int) -> None:
    with STATS.lock:
        STATS.host_to_device_bytes += int(nbytes)


def current_device() -> int:
    dev = devices.current()
    devices.check_alive(dev)
    return dev


class _Flags:
    def __init__(self, a: np.ndarray) -> None:
        self.c_contiguous = bool(a.flags.c_contiguous)
        self.f_contiguous = bool(a.flags.f_contiguous)
        self.owndata = a.base is None

    def __getitem__(self, key: str) -> bool:
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[key]


class MemoryPointer:
    """cupy.cuda.MemoryPointer: an address inside one allocation (``ptr + bytes`` moves it)."""

    def __init__(self, ptr: int, device_id: int, owner: np.ndarray | None = None) -> None:
        self.ptr, self.device_id, self.owner = ptr, device_id, owner

    def __add__(self, nbytes: int) -> "MemoryPointer":
        return MemoryPointer(self.ptr + int(nbytes), self.device_id, self.owner)

    def view(self, shape: tuple, dtype: np.dtype, strides: Any) -> np.ndarray:
        """The array at this address (within its allocation: NumPy checks the extent)."""
        base = self.owner
        while base.base is not None and isinstance(base.base, np.ndarray):
            base = base.base
        raw = np.frombuffer(base, np.uint8) if base.base is not None else base.view(np.uint8)
        start = raw.ctypes.data
        return np.ndarray(shape, dtype, buffer=raw, offset=self.ptr - start, strides=strides)


class ndarray:
    """cupy.ndarray (emulated)."""

    __module__ = "cupy"
    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, shape: Any, dtype: Any = float, memptr: Any = None, strides: Any = None,
                 order: str = "C") -> None:
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        if memptr is not None:
            self._a = memptr.view(shape, np.dtype(dtype), strides)
            self._device = memptr.device_id
            return
        if strides is not None:
            raise ValueError("emulated cupy.ndarray: strides need memptr")
        self._a = memory.allocate(shape, np.dtype(dtype))
        self._device = current_device()

    @classmethod
    def _wrap(cls, a: np.ndarray, device: int) -> "ndarray":
        obj = cls.__new__(cls)
        obj._a, obj._device = a, device
        return obj

    # -- attributes -----------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: _Flags(self._a))
    T = property(lambda self: self.transpose())

    @property
    def device(self) -> Any:
        from emulated_cuda.runtime import Device

        return Device(self._device)

    @property
    def data(self) -> MemoryPointer:
        return MemoryPointer(self._a.ctypes.data, self._device, self._a)

    @property
    def __cuda_array_interface__(self) -> dict:
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str, "descr": a.dtype.descr,
                "data": (a.ctypes.data, False),
                "strides": None if a.flags.c_contiguous else a.strides, "version": 3}

    def __len__(self) -> int:
        return len(self._a)

    # -- host transfers -------------------------------------------------------------------
    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError(IMPLICIT)

    def __array_ufunc__(self, *args: Any, **kwargs: Any) -> Any:
        return NotImplemented

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        import cupy

        ours = getattr(cupy, func.__name__, None)
        return NotImplemented if ours is None else ours(*args, **kwargs)

    def get(self, stream: Any = None, order: str = "C", out: Any = None,
            blocking: bool = True) -> np.ndarray:
        devices.check_alive(self._device)
        _d2h(self.nbytes)
        host = np.array(self._a, order=order, copy=True)
        if out is not None:
            out[...] = host
            return out
        return host

    def set(self, arr: np.ndarray, stream: Any = None) -> None:
        if not isinstance(arr, np.ndarray) or arr.shape != self.shape:
            raise ValueError("emulated cupy: set() takes a NumPy array of the same shape")
        _h2d(arr.nbytes)
        self._a[...] = arr

    def item(self) -> Any:
        _d2h(self.itemsize)
        return self._a.item()

    def tolist(self) -> Any:
        return self.get().tolist()

    def _scalar(self, kind: Any) -> Any:
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return kind(self.item())

    __int__ = lambda self: self._scalar(int)  # noqa: E731
    __float__ = lambda self: self._scalar(float)  # noqa: E731
    __complex__ = lambda self: self._scalar(complex)  # noqa: E731

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous.")
        return bool(self.item())

    def __repr__(self) -> str:
        return repr(self.get()).replace("array(", "array(", 1)

    def __str__(self) -> str:
        return str(self.get())

    def __reduce__(self) -> tuple:
        return (_rebuild, (self.get(),))

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield self[i]

    # -- views ----------------------------------------------------------------------------
    def _view(self, a: np.ndarray) -> "ndarray":
        return ndarray._wrap(a, self._device)

    def reshape(self, *shape: Any, order: str = "C") -> "ndarray":
        if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = tuple(shape[0])
        result = self._a.reshape(shape, order=order)
        if not np.shares_memory(result, self._a) and result.size:
            return _new(result, self._device, "reshape_copy")
        return self._view(result)

    def transpose(self, *axes: Any) -> "ndarray":
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], numbers.Integral)):
            axes = axes[0]
        return self._view(self._a.transpose(axes) if axes else self._a.transpose())

    def swapaxes(self, a: int, b: int) -> "ndarray":
        return self._view(self._a.swapaxes(a, b))

    def squeeze(self, axis: Any = None) -> "ndarray":
        return self._view(self._a.squeeze(axis))

    def ravel(self, order: str = "C") -> "ndarray":
        return self.reshape(-1, order=order)

    def view(self, dtype: Any = None) -> "ndarray":
        return self._view(self._a.view() if dtype is None else self._a.view(dtype))

    def __getitem__(self, key: Any) -> "ndarray":
        key, advanced = _index(key, self._device)
        result = self._a[key]
        if advanced or not isinstance(result, np.ndarray):
            return _new(np.asarray(result), self._device, "take")
        return self._view(result)

    # -- computations ---------------------------------------------------------------------
    def _mine(self) -> np.ndarray:
        _check_current(self)
        return self._a

    def __setitem__(self, key: Any, value: Any) -> None:
        target = self._mine()
        key, _ = _index(key, self._device)
        target[key] = _operand(value)
        _count("setitem")

    def fill(self, value: Any) -> None:
        self._mine()[...] = _operand(value)
        _count("fill")

    def copy(self, order: str = "C") -> "ndarray":
        return _new(np.array(self._mine(), order=order), self._device, "copy")

    def astype(self, dtype: Any, order: str = "K", casting: Any = None, subok: Any = None,
               copy: bool = True) -> "ndarray":
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        return _new(self._mine().astype(dtype, order="C"), self._device, "astype")

    def _reduce(self, name: str, axis: Any = None, dtype: Any = None, out: Any = None,
                keepdims: bool = False) -> "ndarray":
        kwargs = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            kwargs["dtype"] = dtype
        return _new(np.asarray(getattr(np, name)(self._mine(), **kwargs)), self._device, name)

    sum = lambda self, *a, **k: self._reduce("sum", *a, **k)  # noqa: E731
    prod = lambda self, *a, **k: self._reduce("prod", *a, **k)  # noqa: E731
    min = lambda self, axis=None, out=None, keepdims=False: self._reduce(  # noqa: E731
        "min", axis, keepdims=keepdims)
    max = lambda self, axis=None, out=None, keepdims=False: self._reduce(  # noqa: E731
        "max", axis, keepdims=keepdims)
    mean = lambda self, *a, **k: self._reduce("mean", *a, **k)  # noqa: E731

    def argmax(self, axis: Any = None) -> "ndarray":
        return _new(np.asarray(np.argmax(self._mine(), axis=axis)), self._device, "argmax")

    def argmin(self, axis: Any = None) -> "ndarray":
        return _new(np.asarray(np.argmin(self._mine(), axis=axis)), self._device, "argmin")

    def any(self, axis: Any = None) -> "ndarray":
        return self._reduce("any", axis)

    def all(self, axis: Any = None) -> "ndarray":
        return self._reduce("all", axis)

    def __copy__(self) -> "ndarray":
        return self.copy()

    def __deepcopy__(self, memo: dict) -> "ndarray":
        return self.copy()


def _rebuild(host: np.ndarray) -> ndarray:
    return asarray(host)


def _check_current(a: ndarray) -> None:
    cur = current_device()
    if a._device != cur:
        raise ValueError(f"Array device must be same as the current device: array device = "
                         f"{a._device} while current = {cur}")


def _new(host: np.ndarray, device: int, op: str) -> ndarray:
    _count(op)
    return ndarray._wrap(memory.copy_in(host), device)


def _operand(value: Any) -> Any:
    """A value CuPy accepts in an operation: a device array of the current device or a scalar."""
    if isinstance(value, ndarray):
        _check_current(value)
        return value._a
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)}")
    if isinstance(value, (numbers.Number, np.generic, bool)):
        return value
    raise TypeError(f"Unsupported type {type(value)}")


def _index(key: Any, device: int) -> tuple[Any, bool]:
    """``key`` with device index arrays as NumPy ones, and whether it is advanced indexing."""
    items = key if isinstance(key, tuple) else (key,)
    out, advanced = [], False
    for k in items:
        if isinstance(k, ndarray):
            if k._device != device:
                raise ValueError(f"index array on device {k._device}, array on device {device}")
            out.append(k._a)
            advanced = True
        elif isinstance(k, (np.ndarray, list)):
            host = np.asarray(k)
            _h2d(host.nbytes)
            out.append(host)
            advanced = True
        else:
            out.append(k)
    return (tuple(out) if isinstance(key, tuple) else out[0]), advanced


def _binary(fn: Any, name: str, reflected: bool = False) -> Any:
    def method(self: ndarray, other: Any) -> Any:
        try:
            b = _operand(other)
        except TypeError:
            return NotImplemented
        a = self._mine()
        return _new(np.asarray(fn(b, a) if reflected else fn(a, b)), self._device, name)

    return method


def _inplace(fn: Any, name: str) -> Any:
    def method(self: ndarray, other: Any) -> ndarray:
        a = self._mine()
        fn(a, _operand(other), out=a, casting="same_kind")
        _count(name)
        return self

    return method


for _name, _fn in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                   ("mod", np.remainder), ("pow", np.power), ("and", np.bitwise_and),
                   ("or", np.bitwise_or), ("xor", np.bitwise_xor), ("matmul", np.matmul),
                   ("lshift", np.left_shift), ("rshift", np.right_shift)]:
    setattr(ndarray, f"__{_name}__", _binary(_fn, _name))
    setattr(ndarray, f"__r{_name}__", _binary(_fn, _name, reflected=True))
    if _name != "matmul":
        setattr(ndarray, f"__i{_name}__", _inplace(_fn, _name))
for _name, _fn in [("lt", operator.lt), ("le", operator.le), ("gt", operator.gt),
                   ("ge", operator.ge), ("eq", operator.eq), ("ne", operator.ne)]:
    setattr(ndarray, f"__{_name}__", _binary(_fn, _name))
for _name, _fn in [("neg", np.negative), ("pos", np.positive), ("abs", np.absolute),
                   ("invert", np.invert)]:
    setattr(ndarray, f"__{_name}__",
            (lambda f, n: lambda self: _new(np.asarray(f(self._mine())), self._device, n))(
                _fn, _name))


# -- creation and transfers -----------------------------------------------------------------

def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    return ndarray(shape, dtype)


def zeros(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    out = ndarray(shape, dtype)
    out._a[...] = 0
    _count("zeros")
    return out


def ones(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    out = ndarray(shape, dtype)
    out._a[...] = 1
    _count("ones")
    return out


def full(shape: Any, fill_value: Any, dtype: Any = None) -> ndarray:
    dtype = np.asarray(fill_value).dtype if dtype is None else dtype
    out = ndarray(shape, dtype)
    out._a[...] = _operand(fill_value)
    _count("full")
    return out


def empty_like(a: ndarray, dtype: Any = None) -> ndarray:
    return empty(a.shape, a.dtype if dtype is None else dtype)


def zeros_like(a: ndarray, dtype: Any = None) -> ndarray:
    return zeros(a.shape, a.dtype if dtype is None else dtype)


def ones_like(a: ndarray, dtype: Any = None) -> ndarray:
    return ones(a.shape, a.dtype if dtype is None else dtype)


def arange(*args: Any, dtype: Any = None) -> ndarray:
    return _new(np.arange(*args, dtype=dtype), current_device(), "arange")


def array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", ndmin: int = 0
          ) -> ndarray:
    if isinstance(obj, ndarray):
        if obj._device == current_device() and not copy and (dtype is None
                                                               or np.dtype(dtype) == obj.dtype):
            return obj
        host = obj._a  # a device-to-device copy (peer copies are allowed)
        return _new(np.array(host, dtype=dtype, order="C" if order in "KA" else order,
                             ndmin=ndmin), current_device(), "copy")
    host = np.array(obj, dtype=dtype, order="C" if order in "KA" else order, ndmin=ndmin)
    _h2d(host.nbytes)
    return ndarray._wrap(memory.copy_in(host), current_device())


def asarray(a: Any, dtype: Any = None, order: Any = None) -> ndarray:
    return array(a, dtype, copy=False, order=order or "K")


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    if isinstance(a, ndarray) and a.flags.c_contiguous and (dtype is None
                                                            or np.dtype(dtype) == a.dtype):
        _check_current(a)
        return a
    if isinstance(a, ndarray):
        return _new(np.ascontiguousarray(a._mine(), dtype=dtype), a._device, "copy")
    return array(a, dtype, order="C")


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None) -> np.ndarray:
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def get_array_module(*args: Any) -> Any:
    import cupy

    return cupy if any(isinstance(a, ndarray) for a in args) else np
