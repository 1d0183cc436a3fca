"""Matrix products on as many of OpenBLAS's threads as pays, chosen by measuring.

NumPy's OpenBLAS splits every product above a small size over all its threads and waits for
each part. When other processes keep the cores busy, a descheduled thread holds up the whole
product: on 2 cores at load 3, a 200x200 float64 product took 19 ms on 2 threads and 0.7 ms on
one, and the ~90 products of a LeNet training step made it 5-10 times slower than on one
thread. With idle cores, large products are up to ~2 times faster on 2 threads. Neither
setting is right always, and the load changes while a program runs, so :func:`dot` measures:
for each product shape it keeps a running estimate of the time on all threads and on one,
runs the faster, and now and then runs the other once more to refresh its estimate, within a
budget of a few percent of the time (see :class:`_Choice`). A change of load is followed
within a few training steps.

The thread count is set with OpenBLAS's ``openblas_set_num_threads_local`` around the call
and restored after it. Despite its name that setting is the whole process's (in NumPy's
pthreads OpenBLAS): a count of the one-thread calls in flight (under a lock) sets it when the
first starts and restores it when the last ends, so calls from several Python threads cannot
leave it at one; a threaded call that overlaps them runs on one thread. The convolutions (:mod:`.conv_gemm`), the ``Dot`` lowering and :mod:`.cblas`'s
``gemm`` call through here. Without that function (another BLAS, an older OpenBLAS) or one BLAS
thread, :func:`dot` is ``numpy.dot``.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from typing import Any

import numpy as np

from jitgraph.backend_cpu.runtime.cblas import _library_paths

#: products with fewer multiply-adds run as they are (OpenBLAS uses one thread for them)
MIN_WORK = 64 ** 3
#: share of a shape's time that re-measuring the slower choice may cost (see :class:`_Choice`)
BUDGET = 0.03
#: the budget halves each time the re-measured choice is still the slower, this many times
MAX_HALVINGS = 5
#: weight of a new time in the running estimate of the faster choice
SMOOTHING = 0.5

_setter: Any = None
_getter: Any = None
_threads = 0  # OpenBLAS's thread count; 0: not looked up yet, 1: nothing to choose
_choices: dict[tuple, _Choice] = {}
_numpy_dot = np.dot
_lock = threading.Lock()
_single = [0, 0]  # one-thread calls in flight, the thread count to restore after the last


class _Choice:
    """Time estimates of one kind of call on all threads ([0]) and on one ([1]).

    Each choice is measured once first; then the faster runs, and the slower runs once more
    when the time spent since its last run reaches what running it would cost extra (the
    difference of the estimates) divided by :data:`BUDGET`, so that re-measuring costs at
    most that share of the time. Each re-measurement that finds it still slower halves the
    share (down to ``BUDGET / 2**MAX_HALVINGS``); a change of the faster choice resets it.
    """

    __slots__ = ("best", "estimate", "halvings", "spent")

    def __init__(self) -> None:
        self.estimate: list[float] = [-1.0, -1.0]
        self.best = 0
        self.spent = 0.0
        self.halvings = 0

    def pick(self) -> int:
        """The choice to run now."""
        for k in (0, 1):
            if self.estimate[k] < 0:
                return k
        extra = self.estimate[1 - self.best] - self.estimate[self.best]
        due = self.spent * BUDGET >= extra * (1 << self.halvings)
        return 1 - self.best if due else self.best

    def record(self, k: int, seconds: float) -> None:
        """The call ran choice ``k`` in ``seconds``."""
        old = self.estimate[k]
        if k == self.best and old >= 0:
            self.estimate[k] = old + SMOOTHING * (seconds - old)
            self.spent += seconds
        else:  # a first or a re-measurement: the old estimate is stale
            self.estimate[k] = seconds
            self.spent = 0.0
            if k != self.best and min(self.estimate) >= 0:
                if seconds < self.estimate[self.best]:
                    self.best, self.halvings = k, 0
                else:
                    self.halvings = min(self.halvings + 1, MAX_HALVINGS)
            return
        if min(self.estimate) >= 0 and self.estimate[k] > self.estimate[1 - k]:
            # the faster choice got slower than the other's last time: try that again now
            self.best, self.halvings, self.spent = 1 - k, 0, 0.0


def _lookup() -> None:
    global _setter, _getter, _threads
    _threads = 1
    if os.environ.get("JITGRAPH_BLAS_THREADS", "1") == "0":
        return  # every product on OpenBLAS's own thread count

    for path in _library_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        setter = getattr(lib, "openblas_set_num_threads_local", None)
        getter = getattr(lib, "scipy_openblas_get_num_threads64_", None) or \
            getattr(lib, "openblas_get_num_threads64_", None) or \
            getattr(lib, "openblas_get_num_threads", None)
        if setter is None or getter is None:
            continue
        setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
        getter.argtypes, getter.restype = [], ctypes.c_int
        _setter, _getter, _threads = setter, getter, max(1, getter())
        return


def call(key: tuple, work: int, fn: Any, *args: Any) -> Any:
    """``fn(*args)``, a BLAS call of ``work`` multiply-adds identified by ``key`` (its shape,
    dtype and layout), on all OpenBLAS threads or on one, whichever is currently faster for
    calls of that key (see the module docstring)."""
    if _threads == 0:
        _lookup()
    if _threads <= 1 or work < MIN_WORK:
        return fn(*args)
    choice = _choices.get(key)
    if choice is None:
        choice = _choices[key] = _Choice()
    one = choice.pick()
    if one:
        _one_thread(True)
    start = time.perf_counter()
    try:
        result = fn(*args)
    finally:
        if one:
            _one_thread(False)
    choice.record(one, time.perf_counter() - start)
    return result


def _one_thread(enter: bool) -> None:
    """Enter or leave a one-thread call (see the module docstring)."""
    with _lock:
        if enter:
            if _single[0] == 0:
                _single[1] = _setter(1)
            _single[0] += 1
        else:
            _single[0] -= 1
            if _single[0] == 0:
                _setter(_single[1])


def dot(a: Any, b: Any, out: np.ndarray | None = None) -> Any:
    """``numpy.dot(a, b, out)``; a product of 2-d arrays runs through :func:`call`."""
    if getattr(a, "ndim", 0) != 2 or getattr(b, "ndim", 0) != 2:
        return _numpy_dot(a, b) if out is None else _numpy_dot(a, b, out=out)
    m, k = a.shape
    key = ("dot", m, k, b.shape[1], a.dtype.char, b.dtype.char, a.strides, b.strides)
    if out is None:
        return call(key, m * k * b.shape[1], _numpy_dot, a, b)
    return call(key, m * k * b.shape[1], _numpy_dot, a, b, out)
