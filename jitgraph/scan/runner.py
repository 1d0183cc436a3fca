"""The loop behind ``Scan.perform``: the compiled inner program run once per step.

Every output buffer is allocated once, before the first step (nit-sot buffers at the first step,
when the shape of a step's value is known); each step reads its sequence slices and taps as views
of the outer arrays (``a[t, ...]``: 0-d views, never NumPy scalars) and copies its results into
the buffers. A recurrent output kept only in part (``info.keep``) lives in a ring buffer.

The buffers are arrays of the device the inner program computes on: the ``arrays`` module
(:class:`~jitgraph.compile.array_module.ArrayModule`) a backend gives (NumPy's on the host,
CuPy's for a loop on the GPU, whose state and outputs then never leave the device).
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from jitgraph.compile.array_module import HOST_ARRAYS, ArrayModule
from jitgraph.config import config


class ScanStepError(RuntimeError):
    """A step's value does not fit the loop (its shape changed between steps)."""


class Layout:
    """What every call of a loop looks up in ``op.info``, computed once per op (the slices of
    the outer inputs and outputs, each recurrent output's taps, initial entries and kept
    entries): a call costs a few microseconds less."""

    __slots__ = ("seqs", "inits", "non_seqs", "shared", "rec_out", "nit_out", "shared_out",
                 "recs")

    def __init__(self, info: Any) -> None:
        self.seqs = info.outer_seqs()
        self.inits = info.outer_inits()
        self.non_seqs = info.outer_non_seqs()
        self.shared = info.outer_shared()
        self.rec_out = info.rec_outputs()
        self.nit_out = info.nit_outputs()
        self.shared_out = info.shared_outputs()
        #: per recurrent output: (taps, initial entries, kept entries)
        self.recs = [(info.rec_taps[k], info.n_init(k), info.keep[k])
                     for k in range(info.n_rec)]


def layout(op: Any) -> Layout:
    """The :class:`Layout` of ``op`` (kept on the op, which never changes its info)."""
    found = op.__dict__.get("_loop_layout")
    if found is None:
        found = op.__dict__["_loop_layout"] = Layout(op.info)
    return found


def prepare(op: Any, inputs: Sequence[Any], in_place: bool = False,
            arrays: ArrayModule = HOST_ARRAYS) -> tuple[int, list, list]:
    """Checked ``n_steps``, the sequences, and the recurrent buffers (arrays of ``arrays``)
    holding the initial values (what any loop implementation starts from). ``in_place``:
    single-entry buffers for the states the inner program may update in place (see
    ``Scan.inner_function``)."""
    lay = layout(op)
    n_steps = _check_n_steps(op, inputs[0])
    seqs = list(inputs[lay.seqs])
    for j, seq in enumerate(seqs):
        if seq.shape[0] < n_steps:
            raise ValueError(f"sequence {j} of scan {op.name!r} has {seq.shape[0]} entries, "
                             f"fewer than the {n_steps} steps asked for (n_steps)")
    recs = [RecBuffer(op, k, init, n_steps, in_place, static, arrays) for k, (init, static)
            in enumerate(zip(inputs[lay.inits], lay.recs))]
    return n_steps, seqs, recs


def run_scan(op: Any, inputs: Sequence[Any], output_storage: list, mode: Any = None,
             profile: Any = None, arrays: ArrayModule = HOST_ARRAYS, fn: Any = None) -> None:
    """Run the loop of ``op`` with the inner program, compiled by ``mode`` (None: the op's),
    called once per step; ``profile`` (a ScanProfileStats) times the loop and the inner
    program's nodes. ``arrays``: the array module of the device the inner program computes
    on (its buffers are made there); ``fn``: the compiled inner program to run instead of
    ``op.inner_function(mode)`` (a backend's version of the inner graph). The inner program
    (its cells and kept buffers) belongs to the op, which every copy of a function shares: a
    loop finding it in use runs a spare (``borrow``)."""
    shared = op.inner_function(mode) if fn is None else fn
    fn = shared.borrow()
    try:
        if profile is not None:
            _profiled(op, fn, inputs, output_storage, profile, arrays)
            return
        _run(op, fn, fn.run, inputs, output_storage, None, arrays)
    finally:
        shared.give_back(fn)


def _profiled(op: Any, fn: Any, inputs: Sequence[Any], output_storage: list, profile: Any,
              arrays: ArrayModule) -> None:
    inner = [0.0]
    t0 = time.perf_counter()
    run = fn.downloading(profile.inner_run(fn))
    done = _run(op, fn, run, inputs, output_storage, inner, arrays)
    profile.record_loop(done, time.perf_counter() - t0, inner[0])


def _run(op: Any, fn: Any, run: Any, inputs: Sequence[Any], output_storage: list,
         inner_time: list | None, arrays: ArrayModule = HOST_ARRAYS) -> int:
    info = op.info
    n_steps, seqs, recs = prepare(op, inputs, in_place=True, arrays=arrays)
    shared = [_copied(v, arrays) for v in inputs[info.outer_shared()]]
    in_cells = fn.input_cells
    out_cells = fn.output_cells
    for cell, value in zip(in_cells[info.inner_non_seqs()], inputs[info.outer_non_seqs()]):
        cell[0] = value
    seq_cells = in_cells[info.inner_seqs()]
    # (cell, buffer, position of the tap at step 0, buffer length): taps read in place
    tap_reads = [(cell, rec.buf, rec.n_init + tap, rec.size) for rec in recs if rec.size > 1
                 for cell, tap in zip(in_cells[info.inner_taps(rec.k)], rec.taps)]
    # a single-entry buffer is read through one view, the same object every step (a step that
    # updated it in place returns that very object)
    view_reads = [(cell, rec.view) for rec in recs if rec.size == 1
                  for cell in in_cells[info.inner_taps(rec.k)]]
    shared_in = in_cells[info.inner_shared()]
    rec_out = out_cells[info.rec_outputs()]
    dests = _dest_cells(fn, len(out_cells))
    rec_dests = dests[info.rec_outputs()]
    # (destination cell, buffer, position of the entry written at step 0, buffer length): the
    # inner program computes a step's value straight into the entry it is stored in (a state
    # in a single-entry buffer is updated in place instead)
    fills = [(dest, rec.buf, rec.n_init, rec.size) for rec, dest in zip(recs, rec_dests)
             if dest is not _NO_DEST and rec.size > 1]
    writes = [(rec, cell, rec.buf, rec.n_init, rec.size, rec.state_shape, dest)
              for rec, cell, dest in zip(recs, rec_out, rec_dests)]
    nit_out = out_cells[info.nit_outputs()]
    nit_dests = dests[info.nit_outputs()]
    shared_out = out_cells[info.shared_outputs()]
    cond_cell = out_cells[-1] if info.as_while else None
    nits: list[Any] = [None] * info.n_nit_sot
    single = [rec for rec in recs if rec.size == 1]
    done = n_steps
    try:
        for t in range(n_steps):
            for cell, seq in zip(seq_cells, seqs):
                cell[0] = seq[t, ...]
            for cell, buf, pos, size in tap_reads:
                cell[0] = buf[(t + pos) % size, ...]
            for cell, view in view_reads:
                cell[0] = view
            for cell, value in zip(shared_in, shared):
                cell[0] = value
            for dest, buf, pos, size in fills:
                dest[0] = buf[(t + pos) % size, ...]  # (a 0-d entry: an array, not a scalar)
            for i, dest in enumerate(nit_dests):
                if dest is not _NO_DEST and nits[i] is not None:
                    dest[0] = nits[i][t, ...]
            t_step = time.perf_counter() if inner_time is not None else 0.0
            try:
                run()
            except Exception as exc:
                _reraise_in_step(exc, op, t)
            if inner_time is not None:
                inner_time[0] += time.perf_counter() - t_step
            # Outputs not fed back first: a value may live in a single-entry state buffer that
            # the step updated in place, which storing the new states overwrites.
            for i, cell in enumerate(nit_out):
                if cell[0] is not nit_dests[i][0]:  # (else computed into its entry)
                    nits[i] = _store_nit(op, i, nits[i], t, cell[0], n_steps, arrays)
            for i, cell in enumerate(shared_out):
                shared[i] = _copied(cell[0], arrays)
            if single:
                _write_states(recs, rec_out, single, t, writes, arrays)
            else:
                for rec, cell, buf, n_init, size, shape, dest in writes:
                    value = cell[0]
                    if value is dest[0]:
                        continue  # computed into its entry
                    if getattr(value, "shape", ()) != shape:
                        rec.write(t, value)  # (raises, naming the output and both shapes)
                    buf[(t + n_init) % size] = value
            if cond_cell is not None and _stop(op, cond_cell[0], arrays):
                done = t + 1
                break
    finally:
        for dest in dests:  # the buffers become the loop's outputs: the program lets go
            dest[0] = None
    try:
        finish(op, output_storage, recs, nits, shared, done, n_steps, arrays)
    finally:
        # nor does it keep the last step's inputs (views into the caller's sequences) and
        # outputs alive until the next call
        for cell in in_cells + out_cells:
            cell[0] = None
    return done


#: the destination cell of an output that has none (always empty)
_NO_DEST: list = [None]
#: a new state already in its buffer (see ``_write_states``)
_STORED = object()


def _dest_cells(fn: Any, n_out: int) -> list:
    """Per output of the inner program, the cell to put the array it should be computed into
    (``_NO_DEST`` where it has none, or the ``scan.allow_output_prealloc`` flag is off)."""
    found = getattr(fn, "output_dests", None)
    if not found or not config.scan.allow_output_prealloc:
        return [_NO_DEST] * n_out
    return [_NO_DEST if cell is None else cell for cell in found]


def _reraise_in_step(exc: Exception, op: Any, t: int) -> None:
    """Re-raise an error of the inner program saying in which step of which loop it happened
    (the message survives the outer program's own re-raise, which keeps only the text)."""
    where = f"(in step {t} of scan {op.name!r}: the node above is a node of its inner graph)"
    try:
        new = type(exc)(f"{exc}\n{where}")
    except Exception:  # an exception type that cannot be rebuilt from a message
        exc.add_note(where)
        raise exc
    raise new.with_traceback(exc.__traceback__) from exc


def _check_n_steps(op: Any, value: Any) -> int:
    n_steps = int(value)
    if n_steps < 0:
        raise IndexError(f"scan {op.name!r} was asked to run a negative number of steps "
                         f"({n_steps}); give a non-negative n_steps (a constant negative "
                         "n_steps runs the loop backwards)")
    return n_steps


def _copied(value: Any, arrays: ArrayModule) -> Any:
    """A copy of a shared state that is an array (other values, random states, as they are)."""
    return arrays.copy(value) if arrays.is_array(value) else value


def _stop(op: Any, cond: Any, arrays: ArrayModule) -> bool:
    try:
        return arrays.truth(cond)
    except ValueError as exc:
        raise ValueError(f"the until condition of scan {op.name!r} must be a scalar: "
                         f"{exc}") from None


def _store_nit(op: Any, i: int, buf: Any, t: int, value: Any, n_steps: int,
               arrays: ArrayModule = HOST_ARRAYS) -> Any:
    if not arrays.is_array(value):
        value = np.asarray(value)  # (a host scalar of a host loop)
    if buf is None:
        buf = arrays.empty((n_steps,) + value.shape, value.dtype)
    elif value.shape != buf.shape[1:]:
        raise ScanStepError(f"output {op.info.n_rec + i} of scan {op.name!r} (not fed back) has "
                            f"shape {value.shape} at step {t} but {buf.shape[1:]} at step 0; "
                            "every step must give the same shape")
    buf[t] = value
    return buf


def _write_states(recs: list, rec_out: list, single: list, t: int, writes: list,
                  arrays: ArrayModule = HOST_ARRAYS) -> None:
    """Store the step's new states when some buffers hold a single entry (the step may have
    updated them in place, and a value may live in another one)."""
    values = [cell[0] for cell in rec_out]
    for i, (rec, value) in enumerate(zip(recs, values)):
        if value is writes[i][-1][0]:
            values[i] = _STORED  # computed into its entry
            continue
        if value is rec.view or len(single) == 1 and rec is single[0]:
            continue  # updated in place, or there is no other single-entry buffer
        # A value that owns its memory (a fresh result) lives in no state buffer.
        if getattr(value, "base", None) is not None:
            values[i] = _unshared(value, rec, single, arrays)
    for rec, value in zip(recs, values):
        if value is rec.view or value is _STORED:
            continue
        if rec.size == 1 and getattr(value, "shape", None) == rec.state_shape:
            rec.buf[0] = value
        else:
            rec.write(t, value)


def _unshared(value: Any, rec: "RecBuffer", single: list,
              arrays: ArrayModule = HOST_ARRAYS) -> Any:
    """``value`` (the new state of ``rec``), copied if it lives in another single-entry
    state buffer (which is about to be overwritten)."""
    for other in single:
        if other is not rec and arrays.is_array(value) \
                and arrays.may_share_memory(value, other.buf):
            return arrays.copy(value)
    return value


class RecBuffer:
    """The buffer of one recurrent output: its initial entries, then one entry per step."""

    __slots__ = ("op", "k", "taps", "n_init", "keep", "size", "ring", "buf", "view",
                 "state_shape", "arrays")

    def __init__(self, op: Any, k: int, init: Any, n_steps: int,
                 in_place: bool = False, static: tuple | None = None,
                 arrays: ArrayModule = HOST_ARRAYS) -> None:
        self.op = op
        self.k = k
        self.arrays = arrays
        # (taps, initial entries, kept entries): from the op's Layout, or looked up
        self.taps, self.n_init, self.keep = static if static is not None else layout(op).recs[k]
        n_init = self.n_init
        if init.shape[0] < n_init:
            raise ValueError(f"the initial value of recurrent output {k} of scan {op.name!r} "
                             f"has {init.shape[0]} entries, but its taps {list(self.taps)} "
                             f"need {n_init}")
        total = n_init + n_steps
        # A ring buffer must hold the taps a step reads plus the entry it writes; a single
        # entry when the step reads only its last value and it is the only one kept (the
        # step is done with the old value before the new one is stored: an accumulator the
        # inner program may update in place).
        self.size = total if not self.keep else min(total, max(self.keep, n_init + 1))
        if in_place and self.keep == 1 and self.taps == (-1,):
            self.size = 1
        self.ring = self.size < total
        self.buf = arrays.empty((self.size,) + init.shape[1:], init.dtype)
        self.buf[:n_init] = init[:n_init]
        #: the entry of a single-entry buffer, as one view (None for longer buffers)
        self.view = self.buf[0, ...] if self.size == 1 else None
        self.state_shape = init.shape[1:]

    def read(self, t: int, tap: int) -> np.ndarray:
        pos = t + self.n_init + tap
        return self.buf[pos % self.size if self.ring else pos, ...]

    def write(self, t: int, value: Any) -> None:
        shape = np.shape(value)
        if shape != self.state_shape:
            op = self.op
            raise ScanStepError(
                f"recurrent output {self.k} of scan {op.name!r} has shape {shape} at step {t}, "
                f"but its initial value (outputs_info) has shape {self.state_shape}; the step "
                "function must return values of the initial value's shape")
        pos = t + self.n_init
        pos = pos % self.size if self.ring else pos
        if self.size == 1 and self.arrays.same_entry(value, self.buf):
            return  # the step updated its state in place
        self.buf[pos] = value

    def result(self, done: int) -> np.ndarray:
        total = self.n_init + done
        if not self.keep:
            return self.buf[:total] if total < self.size else self.buf
        m = min(self.keep, total)
        if not self.ring:
            return self.buf[total - m:total]
        start = (total - m) % self.size
        if start + m <= self.size:  # the entries kept do not wrap around: a view
            return self.buf[start:start + m]
        return self.buf[[p % self.size for p in range(total - m, total)]]


def finish(op: Any, output_storage: list, recs: list, nits: list, shared: list, done: int,
           n_steps: int, arrays: ArrayModule = HOST_ARRAYS) -> None:
    """Store the outputs of a loop that ran ``done`` of its ``n_steps`` steps (the arrays
    of a loop that ran no step are made with ``arrays``)."""
    lay = layout(op)
    for rec, cell in zip(recs, output_storage[lay.rec_out]):
        cell[0] = rec.result(done)
    for i, (buf, cell) in enumerate(zip(nits, output_storage[lay.nit_out])):
        if buf is None:  # no step ran: the shape of a step's value is unknown
            var = op.inner.outputs[op.info.n_rec + i]
            buf = arrays.empty((0,) * (var.type.ndim + 1), var.type.dtype)
        cell[0] = buf[:done] if done < n_steps else buf
    for value, cell in zip(shared, output_storage[lay.shared_out]):
        cell[0] = value
