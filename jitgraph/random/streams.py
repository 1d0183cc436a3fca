"""``RandomStreams`` (Theano's ``shared_randomstreams``): every draw gets its own shared
``numpy.random.RandomState``.

The streams object owns a seed generator, ``RandomState(seed)``; each draw's generator is
``RandomState(seedgen.randint(2**30))``, so a program that makes the same draws in the same
order gets Theano's numbers. ``seed(s)`` reseeds every draw made so far the same way, from a
fresh ``RandomState(s)``. A draw's ``rng`` attribute is its shared variable and ``update`` the
pair ``(rng, new_rng)`` that its ``default_update`` applies.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.random.random_state import RandomStateSharedVariable, randomstate_constructor
from jitgraph.random.raw import RandomStreamsBase

#: each draw's seed is below this bound
SEED_BOUND = 2**30


def _generator(item: Variable) -> RandomStateSharedVariable:
    if isinstance(item, RandomStateSharedVariable):
        return item
    rng = getattr(item, "rng", None)
    if isinstance(rng, RandomStateSharedVariable):
        return rng
    raise TypeError(f"RandomStreams[item]: item is a draw's shared generator (draw.rng) or the "
                    f"draw; got {item!r}")


class RandomStreams(RandomStreamsBase):
    """Module-level random streams backed by NumPy's legacy ``RandomState``."""

    def __init__(self, seed: Any = None) -> None:
        #: ``(shared RandomState, its update)`` per draw
        self.state_updates: list[tuple[Variable, Variable]] = []
        self.default_instance_seed = seed
        self.gen_seedgen = np.random.RandomState(seed)

    def updates(self) -> list[tuple[Variable, Variable]]:
        """The ``(shared RandomState, new state)`` pair of every draw."""
        return list(self.state_updates)

    def seed(self, seed: Any = None) -> None:
        """Reseed every draw made so far: draw ``k`` gets ``RandomState(s_k)``, ``s_k`` the
        ``k``-th ``randint(2**30)`` of ``RandomState(seed)`` (default: the constructor's)."""
        if seed is None:
            seed = self.default_instance_seed
        seedgen = np.random.RandomState(seed)
        for old_r, _ in self.state_updates:
            old_r.set_value(np.random.RandomState(int(seedgen.randint(SEED_BOUND))), borrow=True)

    def __getitem__(self, item: Variable) -> np.random.RandomState:
        """The value of the shared generator ``item``: a draw's ``rng`` (as in Theano,
        ``streams[out.rng]``) or the draw ``out`` itself."""
        return _generator(item).get_value(borrow=True)

    def __setitem__(self, item: Variable, val: np.random.RandomState) -> None:
        """Give the shared generator ``item`` (``out.rng``, or the draw ``out``) the value
        ``val``."""
        if not isinstance(val, np.random.RandomState):
            raise TypeError(f"a draw's generator must be a numpy.random.RandomState, not "
                            f"{type(val).__name__}")
        _generator(item).set_value(val, borrow=True)

    def gen(self, op: Callable, *args: Any, **kwargs: Any) -> Variable:
        """The sample of ``op(rng, *args, **kwargs)`` on a new shared generator seeded from
        this object's seed generator; the generator's default update is the advanced one."""
        seed = int(self.gen_seedgen.randint(SEED_BOUND))
        rng = randomstate_constructor(np.random.RandomState(seed))
        rng.tag.is_rng = True
        new_r, out = op(rng, *args, **kwargs)
        out.rng = rng
        out.update = (rng, new_r)
        self.state_updates.append(out.update)
        rng.default_update = new_r
        return out
