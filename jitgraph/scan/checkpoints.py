"""``scan_checkpoints``: a scan that stores its state only every ``save_every_N`` steps.

The loop is split into chunks of ``save_every_N`` steps: an outer scan over the chunks runs, per
chunk, an inner scan and keeps only its last state. The gradient recomputes each chunk's steps
from the stored state (the gradient of the inner scan inside the backward outer scan), trading
time for memory.
"""

from __future__ import annotations

from typing import Any

from jitgraph.scan.builder import _listify, scan
from jitgraph.scan.updates import OrderedUpdates
from jitgraph.tensor.core.basic import concatenate, zeros
from jitgraph.tensor.elementwise.math import minimum
from jitgraph.tensor.extras.extra_ops import arange


def scan_checkpoints(fn: Any, sequences: Any = None, outputs_info: Any = None,
                     non_sequences: Any = None, name: str = "checkpointscan_fn",
                     n_steps: Any = None, save_every_N: int = 10, padding: bool = True
                     ) -> tuple[Any, OrderedUpdates]:
    """Like :func:`~jitgraph.scan.scan` (``fn`` receives sequences, states, non-sequences), but
    the outputs hold only the values at every ``save_every_N``-th step (and the last step).

    Restrictions (as Theano's): sequences without taps, all of the same length (``n_steps``,
    if given, equal to it); outputs recurrent with the single tap -1 or not fed back. With
    ``padding`` the sequences are padded with zeros to a multiple of ``save_every_N`` (the
    padded steps are not run); without, their length must already be one.
    """
    seqs = _listify(sequences)
    infos = _listify(outputs_info)
    non_seqs = _listify(non_sequences)
    every = int(save_every_N)
    if every < 1:
        raise ValueError(f"scan_checkpoints: save_every_N must be positive, got {save_every_N}")
    for j, s in enumerate(seqs):
        if isinstance(s, dict):
            raise ValueError(f"scan_checkpoints: sequence {j} has taps; only plain sequences "
                             "are supported (use scan)")
    for k, o in enumerate(infos):
        if isinstance(o, dict) and o.get("initial") is not None \
                and list(o.get("taps", [-1]) or [-1]) != [-1]:
            raise ValueError(f"scan_checkpoints: output {k} has taps {o['taps']}; only the "
                             "single tap -1 is supported (use scan)")
    if n_steps is None:
        if not seqs:
            raise ValueError("scan_checkpoints needs n_steps when it is given no sequences")
        n_steps = seqs[0].shape[0]
    n_chunks = (n_steps + every - 1) // every if padding else n_steps // every
    chunked = []
    for s in seqs:
        if padding:
            missing = n_chunks * every - s.shape[0]
            s = concatenate([s, zeros([missing] + [s.shape[d] for d in range(1, s.ndim)],
                                      dtype=s.dtype)])
        chunked.append(s.reshape([n_chunks, every] + [s.shape[d] for d in range(1, s.ndim)],
                                 ndim=s.ndim + 1))
    n_seqs = len(seqs)

    def chunk_step(*args: Any) -> Any:
        chunk_seqs = list(args[:n_seqs])
        index = args[n_seqs]
        states = list(args[n_seqs + 1:n_seqs + 1 + len(fed)])
        given_non_seqs = list(args[n_seqs + 1 + len(fed):])
        steps = minimum(every, n_steps - index * every)
        inner_infos, pos = [], 0
        for info in infos:
            if _fed_back(info):
                inner_infos.append(states[pos])
                pos += 1
            else:
                inner_infos.append(None)
        outs, ups = scan(fn, sequences=chunk_seqs, outputs_info=inner_infos or None,
                         non_sequences=given_non_seqs, n_steps=steps, name=name,
                         return_list=True)
        return [o[-1] for o in outs], ups

    fed = [i for i in infos if _fed_back(i)]
    return scan(chunk_step, sequences=chunked + [arange(n_chunks)], outputs_info=infos or None,
                non_sequences=non_seqs, name=f"{name}_chunks")


def _fed_back(info: Any) -> bool:
    if info is None:
        return False
    if isinstance(info, dict):
        return info.get("initial") is not None
    return True
