"""What makes a compiled function safe to call from many threads at once.

A function's call state -- the cells its program reads and writes, the buffers it keeps between
calls (``allow_gc=False``), a native scan loop's scratch arrays, an MRG draw's scratch matrix --
belongs to its linked program. Two calls running on one program at once would overwrite each
other's inputs, intermediate results and outputs. So:

* **The program's call gate** (:func:`call_gate`), for functions that update nothing: a
  one-element list. A call takes the element
  with ``list.pop()`` (atomic: one C call) and puts it back when done. That is all the
  single-threaded path pays (about 15 ns; a ``threading.Lock`` acquire and release costs 60-100
  ns). A call that finds the list empty -- another thread is running the program, or the same
  thread re-entered it -- runs on a **clone** instead: the same function linked again (its own
  cells, buffers and scratch state), taken from the function's pool of spares, made the first
  time the pool is empty, and put back after the call. A pool holds at most as many clones as
  calls ever ran at once, less one.
* **Update gates** (:func:`update_gates`): a call that updates shared variables reads their
  values, runs, and stores the new values (often computed in place into the old ones); two such
  calls interleaving would lose an update or tear a value. Each updated shared variable is given
  a gate the first time a function updating it is made, and every function updating it holds
  that gate for its whole call: calls updating a variable run one at a time, in some order,
  each seeing the previous one's results. A function updating variables that earlier functions
  put under different gates holds all of them (taken in one global order, so two such
  functions cannot deadlock); usually it is one. Functions with ``In(update=...)`` inputs (their
  default values are state too) or a profile (its counters) hold a gate of their own as well.
  An update gate is taken like the program's (a ``pop``: a lock would cost a random draw's call
  a tenth of its time); a call finding it taken waits (:func:`wait_for`: short sleeps, the
  holder being another thread's call, which releases the GIL in its kernels). It also keeps
  other calls off the function's program (they all take it), so such a function takes no
  program gate and has no clones; a ``copy(share_memory=True)`` running the same program with
  other shared variables (``swap``) holds the original's gates as well.
* **The compile lock** (:data:`COMPILE_LOCK`): building a function (rewriting, linking, and the
  lazy linking of an inner program during a call) runs under one re-entrant lock: rewrites,
  op caches and the graph cache were written for one thread.
"""

from __future__ import annotations

import functools
import sys
import threading
import time
import weakref
from typing import Any, Callable, TypeVar

#: held while a function is built or a program linked (re-entrant: a build may build another)
COMPILE_LOCK = threading.RLock()

_F = TypeVar("_F", bound=Callable[..., Any])


def compiling(fn: _F) -> _F:
    """``fn`` run under :data:`COMPILE_LOCK`."""

    @functools.wraps(fn)
    def locked(*args: Any, **kwargs: Any) -> Any:
        with COMPILE_LOCK:
            return fn(*args, **kwargs)

    return locked  # type: ignore[return-value]


def call_gate(program: Any) -> list:
    """The call gate of ``program`` (made once; every function running the program, copies
    made with ``share_memory=True`` included, uses the same one)."""
    gate = getattr(program, "call_gate", None)
    if gate is None:
        with _ASSIGNING:
            gate = getattr(program, "call_gate", None)
            if gate is None:
                gate = program.call_gate = [True]
    return gate


#: shared variable -> the update gate every function updating it holds during a call
_UPDATE_GATES: "weakref.WeakKeyDictionary[Any, list]" = weakref.WeakKeyDictionary()
_ASSIGNING = threading.Lock()


def new_gate() -> list:
    """A gate: ``[True]``. ``gate.pop()`` takes it, ``gate.append(True)`` gives it back. (A
    list holding itself, which would name the gate its taker holds, costs 15 ns more a call.)
    A generated call keeps what it took in a local ``_fc_held<j>``, the gate's ``pop`` being
    its global ``_fc_utake<j>``; other callers keep the tuple of gates they took in a local
    ``_fc_held``: :func:`wait_for` finds the gates a thread holds from these names."""
    return [True]


def update_gates(updated: list, own: list | None = None, more: tuple = ()) -> tuple:
    """The update gates a call updating the shared variables ``updated`` holds, in the order
    to take them (by id: one global order); ``own``: a gate of the function's own to add;
    ``more``: other gates to add."""
    found: dict[int, list] = {id(gate): gate for gate in more}
    with _ASSIGNING:
        unassigned = []
        for var in updated:
            gate = _UPDATE_GATES.get(var)
            if gate is None:
                unassigned.append(var)
            else:
                found[id(gate)] = gate
        if unassigned:
            gate = next(iter(found.values()), None) or new_gate()
            found[id(gate)] = gate
            for var in unassigned:
                _UPDATE_GATES[var] = gate
    if own is not None:
        found[id(own)] = own
    return tuple(gate for _, gate in sorted(found.items(), key=lambda item: item[0]))


def own_gate(maker: Any) -> list:
    """The gate of a function's own state (``In(update=...)`` defaults, a profile), kept on
    its maker so that its clones share it."""
    gate = maker.__dict__.get("_own_gate")
    if gate is None:
        with _ASSIGNING:
            gate = maker.__dict__.setdefault("_own_gate", new_gate())
    return gate


def wait_for(gate: list) -> list:
    """Take ``gate`` when the call holding it gives it back (a call found it taken). A call
    made by the one holding it (a nested call on the same thread) would wait for ever: it is
    refused."""
    if _held_here(gate):
        raise RuntimeError(
            "a compiled function was called from inside a call (on the same thread) that "
            "updates the same shared variables; the inner call would wait for the outer one for "
            "ever. Call it after the outer call returns, or without those updates.")
    pause = 1e-6
    while True:
        try:
            return gate.pop()
        except IndexError:
            time.sleep(pause)
            pause = min(pause * 2, 2e-4)


def _held_here(gate: list) -> bool:
    """Whether a call on this thread's stack holds ``gate`` (see :func:`new_gate`)."""
    frame = sys._getframe(1)
    while frame is not None:
        for name, value in frame.f_locals.items():
            if not name.startswith("_fc_held"):
                continue
            if type(value) is tuple and any(g is gate for g in value):
                return True
            take = frame.f_globals.get("_fc_utake" + name[len("_fc_held"):])
            if value is True and getattr(take, "__self__", None) is gate:
                return True
        frame = frame.f_back
    return False


def take_all(gates: tuple) -> tuple:
    """Take ``gates`` in their order, waiting where needed."""
    for gate in gates:
        try:
            gate.pop()
        except IndexError:
            wait_for(gate)
    return gates


def give_all(gates: tuple) -> None:
    """Give back ``gates`` taken by :func:`take_all`."""
    for gate in reversed(gates):
        gate.append(True)


def take_waiting(gate: list) -> None:
    """Take the program gate ``gate`` (not an update gate: its holder is not looked for),
    waiting while another call holds it (for the
    storage-level API, which works on the function's own cells: it cannot move to a clone)."""
    pause = 1e-6
    while True:
        try:
            gate.pop()
            return
        except IndexError:
            time.sleep(pause)
            pause = min(pause * 2, 1e-3)
