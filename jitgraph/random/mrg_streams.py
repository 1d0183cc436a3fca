"""``MRG_RandomStreams``: random draws from MRG31k3p streams, as ``theano.sandbox.rng_mrg``.

Each draw gets its own (n_streams, 6) state matrix in a shared variable, the streams object's
state moved ``k * 2**72`` steps for row ``k`` (:func:`~.mrg31k3p.substream_states`); then the
object's state moves ``2**134`` steps on, so the next draw uses fresh streams. The shared
variable's ``default_update`` is the advanced state, so every function computing the draw moves
it on. The same seed, sizes, dtypes, ``nstreams`` and sequence of calls give Theano 1.0.5's
numbers. Distributions other than ``uniform`` are built from uniform draws in the graph
(:mod:`.mrg_distributions`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.graph.shared import COMPUTATION_TARGET, shared
from jitgraph.random import mrg31k3p
from jitgraph.random.mrg_distributions import DistributionsMixin, _is_constant, _is_int
from jitgraph.random.mrg_op import mrg_uniform
from jitgraph.random.muladd import mul_add
from jitgraph.tensor import as_tensor_variable, cast, get_vector_length, stack
from jitgraph.tensor.core import dtypes
from jitgraph.tensor.core.grad_ops import undefined_grad

#: the most streams one draw uses (Theano's choice: 60 blocks of 256 GPU threads)
MAX_STREAMS = 60 * 256
DEFAULT_SEED = 12345


def guess_n_streams(size: Any, warn: bool = False) -> int:
    """How many streams a draw of ``size`` uses when ``nstreams`` is not given: a sixth of the
    samples (all of them up to 6), at most :data:`MAX_STREAMS`; :data:`MAX_STREAMS` for a
    symbolic size. Only Python ints count as known lengths: a NumPy integer in ``size`` (Keras
    passes ``np.prod`` of a shape) takes :data:`MAX_STREAMS`, as Theano 1.0, so that the draw
    is Theano's."""
    if isinstance(size, (tuple, list)) and all(_is_python_int(s) for s in size):
        total = 1
        for s in size:
            total *= int(s)
        if total > 6:
            total //= 6
        return min(total, MAX_STREAMS)
    if warn:
        warnings.warn(f"MRG_RandomStreams cannot determine the number of streams from the size "
                      f"{size}; using {MAX_STREAMS}", stacklevel=3)
    return MAX_STREAMS


def _is_python_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_size(size: Any) -> Any:
    """``size`` as Theano accepts it: a tuple (or list) of positive ints and/or integer
    scalars, or a 1-d integer variable. Returns the tuple, or the variable."""
    if isinstance(size, Variable):
        if size.ndim == 1:
            return size
        raise ValueError(f"a symbolic size must be a vector (one length per dimension), got "
                         f"{size.type}")
    if isinstance(size, (tuple, list)):
        if any(_is_int(s) and s <= 0 for s in size):
            raise ValueError("The specified size contains a dimension with value <= 0", size)
        for s in size:
            if not (_is_int(s) or (isinstance(s, Variable) and s.ndim == 0)):
                raise TypeError(f"size must contain ints or integer scalars, got {s!r} in "
                                f"{size!r}")
        return tuple(size)
    raise TypeError("size must be a tuple of int or a Theano Variable with 1 dimension, got "
                    f"{size} of type {type(size)}")


def check_normal_size(size: Any) -> Any:
    """The size of ``normal``/``truncated_normal``, which Theano checks by other rules than
    ``uniform``'s (with its own messages): an int ``k`` means ``(k,)``, a scalar variable
    ``s`` means ``(s,)``, and lists are accepted. Returns a tuple or a 1-d variable."""
    if isinstance(size, Variable):
        if size.ndim == 1:
            return size
        if size.ndim == 0:
            return (size,)
        raise ValueError("Theano variable must have 1 dimension to be a valid size.", size)
    if _is_int(size):
        if size < 0:  # Theano builds it and fails when run: say so now
            raise ValueError(f"normal: a size of {size} samples (a negative number)", size)
        return (size,)  # 0 too: Theano draws no samples
    if not isinstance(size, (tuple, list)):
        raise ValueError("Size must be a int, tuple, list or Theano variable.", size)
    for s in size:
        if isinstance(s, Variable):
            if s.ndim != 0:
                raise ValueError("Non-scalar Theano variable in size", size, s)
        elif _is_int(s):
            if s <= 0:
                raise ValueError("Non-positive dimensions not allowed in size.", size, s)
        else:
            raise ValueError("Only Theano variables and integers are allowed in a size-tuple.",
                             size, s)
    return tuple(size)


def size_vector(size: Any) -> Variable:
    """The size (checked by :func:`check_size`) as an int64 vector variable."""
    if isinstance(size, Variable):
        return size
    if all(_is_int(s) for s in size):
        return as_tensor_variable(np.asarray(size, dtype=np.int64).reshape(len(size)))
    return stack([cast(s, "int64") for s in size])


class MRG_RandomStreams(DistributionsMixin):  # noqa: N801 - Theano's name
    """Module-level random streams drawing MRG31k3p numbers, Theano's
    ``theano.sandbox.rng_mrg.MRG_RandomStreams``.

    ``seed`` is one non-zero integer below 2147462579 or six integers (the first three below
    2147483647, the last three below 2147462579, neither triple all zero). As in Theano,
    negative seeds (and negative words) are taken: they give states outside MRG31k3p's range,
    from which jitgraph draws Theano's numbers (not uniform in (0, 1): some are negative; see
    :mod:`jitgraph.random.mrg31k3p`).
    """

    def __init__(self, seed: Any = DEFAULT_SEED, use_cuda: Any = None) -> None:
        #: (state shared variable, its update, the size given, the nstreams given) per draw
        self.state_updates: list[tuple] = []
        self.default_instance_seed = seed
        self.set_rstate(seed)

    # -- the streams object's own state ----------------------------------------------------
    def set_rstate(self, seed: Any) -> None:
        """Start again from ``seed`` (the draws' shared states are left alone)."""
        self.rstate = mrg31k3p.seed_state(seed)

    def inc_rstate(self) -> None:
        """Move the streams object's state ``2**134`` steps on (past every stream handed out)."""
        self.rstate = mrg31k3p.jump(self.rstate, mrg31k3p.STREAM_LOG2)[0]

    def get_substream_rstates(self, n_streams: int, dtype: str = "float64",
                              inc_rstate: bool = True) -> np.ndarray:
        """The (n_streams, 6) int32 state matrix of a new draw; moves the object's state on
        unless ``inc_rstate`` is False. (``dtype`` is the draw's; kept for Theano's
        signature.)"""
        n_streams = int(n_streams)
        if n_streams < 1:
            raise ValueError(f"n_streams must be at least 1, got {n_streams}")
        rows = mrg31k3p.substream_states(self.rstate, n_streams)
        if inc_rstate:
            self.inc_rstate()
        return rows

    def n_streams(self, size: Any) -> int:
        return guess_n_streams(size)

    def seed(self, seed: Any = None) -> None:
        """Reseed the object and every draw made so far, as if made again after seeding."""
        if seed is None:
            seed = self.default_instance_seed
        self.set_rstate(seed)
        for old_r, new_r, size, nstreams in self.state_updates:
            count = nstreams if nstreams is not None else self.n_streams(size)
            rows = self.get_substream_rstates(count, new_r.owner.outputs[1].dtype)
            if old_r.get_value(borrow=True).shape != rows.shape:
                raise RuntimeError(f"reseeding {old_r}: its state has shape "
                                   f"{old_r.get_value(borrow=True).shape}, expected {rows.shape}")
            old_r.set_value(rows, borrow=True)

    def updates(self) -> list[tuple]:
        """One ``(state, new_state, size, nstreams)`` tuple per draw, as Theano lists them."""
        return list(self.state_updates)

    # -- drawing ---------------------------------------------------------------------------
    def pretty_return(self, node_rstate: Variable, new_rstate: Variable, sample: Variable,
                      size: Any, nstreams: Any) -> Variable:
        """Record the draw (its state is updated by every function that computes it)."""
        sample.rstate = node_rstate
        sample.update = (node_rstate, new_rstate)
        self.state_updates.append((node_rstate, new_rstate, size, nstreams))
        node_rstate.default_update = new_rstate
        return sample

    def uniform(self, size: Any, low: Any = 0.0, high: Any = 1.0, ndim: int | None = None,
                dtype: str | None = None, nstreams: int | None = None, **kwargs: Any
                ) -> Variable:
        """Uniform numbers in (low, high) of shape ``size``: ``u * (high - low) + low`` of a
        draw ``u`` in (0, 1), rounded once as Theano's compiled code rounds it."""
        size = check_size(size)
        low, high = as_tensor_variable(low), as_tensor_variable(high)
        unit_interval = _is_constant(low, 0) and _is_constant(high, 1)
        low, high = undefined_grad(low), undefined_grad(high)
        if dtype is None:
            dtype = dtypes.upcast(dtypes.floatx(), low.dtype, high.dtype)
        low, high = cast(low, dtype), cast(high, dtype)
        count = nstreams if nstreams is not None else self.n_streams(size)
        rows = self.get_substream_rstates(count, dtype)
        # the state lives where the kernels drawing from it run (on the GPU with device=cuda:
        # the draw's kernel updates it there, no copy each call)
        node_rstate = shared(rows, target=kwargs.pop("target", COMPUTATION_TARGET))
        vsize = size_vector(size)
        length = len(size) if isinstance(size, tuple) else None
        if ndim is not None and length is not None and ndim != length:
            raise ValueError(f"ndim={ndim} does not match the size {size} "
                             f"({length} dimensions)")
        bcast = _broadcastable(size, ndim)
        new_rstate, u = mrg_uniform(node_rstate, vsize, dtype, broadcastable=bcast)
        u = self.pretty_return(node_rstate, new_rstate, u, size=size, nstreams=nstreams)
        if unit_interval:  # u * 1 + 0 is u
            return u
        r = mul_add(u, high - low, low)
        if r.broadcastable != u.broadcastable:
            raise NotImplementedError("Increase the size to match the broadcasting pattern of "
                                      "`low` and `high` arguments")
        return r


def _broadcastable(size: Any, ndim: int | None) -> tuple[bool, ...]:
    if isinstance(size, tuple):
        return tuple(_is_int(s) and s == 1 for s in size)
    if ndim is None:
        ndim = get_vector_length(size)
    return (False,) * ndim


__all__ = ["MRG_RandomStreams", "guess_n_streams", "check_size", "check_normal_size",
           "MAX_STREAMS"]
