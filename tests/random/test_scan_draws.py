"""Gradients of loops that draw inside their step, as Theano 1.0.5 gives them.

An ``MRG_RandomStreams`` state updated by the step is a recurrent state of the loop (Theano's
rule for shared tensors), so the backward loop reads each step's own draws. A ``RandomStreams``
generator stays a shared state: a gradient that would have to redraw its numbers is undefined
("Depends on a shared variable"), unless the step outputs the draw. Values recorded with
Theano 1.0.5 (``ORACLE_PY=1``): the first call of ``f`` (draws output), then of ``g`` (not).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.gradient import NullTypeGradError
from jitgraph.sandbox.rng_mrg import MRG_RandomStreams
from jitgraph.tensor.shared_randomstreams import RandomStreams

THEANO = {
    ("mrg", "lin"): ([0.6713140239007771, 2.549480626359582],
                     [1.6748299305327237, 1.7855438059195876]),
    ("mrg", "sq"): ([3.4633284253609133, 1.8240146435221471],
                    [1.6878610755496544, 2.2284243285919665]),
    ("rs", "lin"): ([1.4037749302852744, 1.507230908484555], None),
    ("rs", "sq"): ([2.127701742101106, 2.3095403171703155], None),
}


def _loop(srng, kind: str, variant: str, x, with_draws: bool):
    def step(acc):
        u = srng.uniform((2,), dtype="float64") if kind == "mrg" else srng.uniform((2,))
        new = acc + (x * u if variant == "lin" else (x * u) ** 2)
        return (new, u) if with_draws else new

    outputs_info = [T.zeros_like(x), None] if with_draws else [T.zeros_like(x)]
    out, updates = jitgraph.scan(step, outputs_info=outputs_info, n_steps=3)
    acc = out[0] if with_draws else out
    return T.grad(acc[-1].sum(), x), updates


@pytest.mark.parametrize("kind", ["mrg", "rs"])
def test_gradient_of_draws_inside_scan(kind: str) -> None:
    """One stream per kind, drawing for the loops in this order (the recorded program's)."""
    x = T.dvector("x")
    srng = MRG_RandomStreams(5) if kind == "mrg" else RandomStreams(5)
    xv = np.asarray([1.0, 2.0])
    for variant in ("lin", "sq"):
        with_draws, without_draws = THEANO[(kind, variant)]
        g, updates = _loop(srng, kind, variant, x, with_draws=True)
        f = jitgraph.function([x], g, updates=updates)
        np.testing.assert_allclose(f(xv), with_draws, rtol=1e-13)
        if without_draws is None:
            with pytest.raises(NullTypeGradError, match="Depends on a shared variable"):
                _loop(srng, kind, variant, x, with_draws=False)
            continue
        g, updates = _loop(srng, kind, variant, x, with_draws=False)
        np.testing.assert_allclose(jitgraph.function([x], g, updates=updates)(xv),
                                   without_draws, rtol=1e-13)


def test_backward_loop_sees_each_steps_draw() -> None:
    """d/dx of sum_t x * u_t is sum_t u_t: the draws the forward loop made, not redraws."""
    x = T.dvector("x")
    srng = MRG_RandomStreams(7)
    acc, updates = jitgraph.scan(lambda a: a + x * srng.uniform((2,), dtype="float64"),
                                 outputs_info=[T.zeros_like(x)], n_steps=4)
    f = jitgraph.function([x], [acc[-1], T.grad(acc[-1].sum(), x)], updates=updates)
    for _ in range(2):
        total, grad = f(np.ones(2))
        np.testing.assert_allclose(grad, total, rtol=1e-15)


def test_mrg_state_after_the_loop_is_the_last_steps() -> None:
    """The update scan returns for an MRG state advances it as many draws as steps ran."""
    srng = MRG_RandomStreams(11)
    draws, updates = jitgraph.scan(lambda: srng.uniform((3,), dtype="float64"), n_steps=4)
    f = jitgraph.function([], draws, updates=updates)
    first, second = f(), f()
    assert len({tuple(row) for row in np.vstack([first, second])}) == 8


@pytest.mark.parametrize("kind", ["rs", "mrg"])
def test_draws_in_scan_under_debug_mode(kind: str) -> None:
    """DebugMode runs a loop drawing in its step (the inner RandomStreams draw is not in
    place: it works on a copy of the generator, which DebugMode compares by state, not by
    identity) and gives FAST_RUN's numbers."""
    def run(mode):
        srng = RandomStreams(5) if kind == "rs" else MRG_RandomStreams(5)
        x0 = T.dvector("x0")

        def step(x):
            noise = srng.normal(size=x.shape) if kind == "rs" else \
                srng.normal(size=(3,), dtype="float64")
            return x + noise

        chain, updates = jitgraph.scan(step, outputs_info=[x0], n_steps=3)
        f = jitgraph.function([x0], chain, updates=updates, mode=mode)
        return [f(np.zeros(3)) for _ in range(2)]

    for got, want in zip(run("DebugMode"), run("FAST_RUN")):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("kind", ["rs", "mrg"])
def test_profiled_loop_with_draws_pickles(kind: str) -> None:
    """A function compiled with profile=True whose loop draws in its step (run step by step,
    so its profile holds the timed inner program) pickles; the copy goes on drawing the
    numbers the original draws and its profile still reports."""
    import io
    import pickle

    srng = RandomStreams(5) if kind == "rs" else MRG_RandomStreams(5)
    x0 = T.dvector("x0")
    chain, updates = jitgraph.scan(
        lambda x: x + (srng.uniform((3,)) if kind == "rs" else srng.uniform((3,),
                                                                          dtype="float64")),
        outputs_info=[x0], n_steps=3)
    f = jitgraph.function([x0], chain, updates=updates, profile=True)
    f(np.zeros(3))
    g = pickle.loads(pickle.dumps(f))
    for _ in range(2):
        np.testing.assert_array_equal(f(np.zeros(3)), g(np.zeros(3)))
    out = io.StringIO()
    f.profile.summary(file=out)
    assert "scan_fn" in out.getvalue()
