"""``map``, ``reduce``, ``foldl`` and ``foldr``: scan with a fixed shape of loop."""

from __future__ import annotations

from typing import Any

from jitgraph.scan.builder import scan
from jitgraph.scan.updates import OrderedUpdates


def map(fn: Any, sequences: Any, non_sequences: Any = None,  # noqa: A001 - Theano's name
        truncate_gradient: int = -1, go_backwards: bool = False, mode: Any = None,
        name: str | None = None) -> tuple[Any, OrderedUpdates]:
    """``fn`` applied to each entry of ``sequences`` (nothing is fed back); returns
    ``(outputs, updates)`` like :func:`~jitgraph.scan.scan`."""
    return scan(fn, sequences=sequences, outputs_info=None, non_sequences=non_sequences,
                truncate_gradient=truncate_gradient, go_backwards=go_backwards, mode=mode,
                name=name)


def reduce(fn: Any, sequences: Any, outputs_info: Any, non_sequences: Any = None,  # noqa: A001
           go_backwards: bool = False, mode: Any = None, name: str | None = None
           ) -> tuple[Any, OrderedUpdates]:
    """Fold ``fn`` over ``sequences`` from the initial values ``outputs_info``; returns only the
    final value of each output (and the updates)."""
    outputs, updates = scan(fn, sequences=sequences, outputs_info=outputs_info,
                            non_sequences=non_sequences, go_backwards=go_backwards, mode=mode,
                            name=name, return_list=True)
    finals = [out[-1] for out in outputs]
    if not finals:
        return None, updates
    return (finals[0] if len(finals) == 1 else finals), updates


def foldl(fn: Any, sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None) -> tuple[Any, OrderedUpdates]:
    """:func:`reduce` from the first entry of the sequences to the last."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=False, mode=mode,
                  name=name)


def foldr(fn: Any, sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None) -> tuple[Any, OrderedUpdates]:
    """:func:`reduce` from the last entry of the sequences to the first."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=True, mode=mode,
                  name=name)
