"""The compiled MRG31k3p kernels draw the reference's numbers bit for bit: the CPU kernel (serial
and split across threads, in place or on a copy), the fused multiply-add kernel, and the CUDA
kernel (compiled by NVRTC for sm_80/sm_90, and run on the CPU through the g++ shim)."""

from __future__ import annotations

import os
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
from jitgraph.random import mrg31k3p
from jitgraph.random.mrg_op import MRGUniform
from jitgraph.random.muladd import fma
from jitgraph.sandbox.rng_mrg import MRG_RandomStreams

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "backend_gpu"))


def _draw_twice(size, dtype, nstreams, **flags):
    with jitgraph.config.change_flags(floatX=dtype, **flags):
        srng = MRG_RandomStreams(12345)
        f = jitgraph.function([], srng.uniform(size, nstreams=nstreams))
        state = srng.state_updates[0][0]
        start = state.get_value()
        got = [f(), f()]
    return got, start, state.get_value(), f


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size, nstreams", [((10,), None), ((7, 3), None), ((20,), 3),
                                            ((1000,), None), ((300,), 1000), ((5000,), 129),
                                            ((1, 1), None), ((257, 13), 256)])
def test_cpu_kernel_equals_reference(dtype, size, nstreams):
    got, start, end, f = _draw_twice(size, dtype, nstreams)
    assert any(isinstance(n.op, MRGUniform) and n.op.inplace for n in f.maker.fgraph.apply_nodes)
    n = int(np.prod(size))
    state = start
    for value in got:
        want, state = mrg31k3p.uniform_sample(state, n, dtype)
        assert value.dtype == dtype and value.shape == size
        np.testing.assert_array_equal(value.reshape(-1), want)
    np.testing.assert_array_equal(end, state)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_parallel_kernel_equals_serial(dtype, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    serial, _, end_serial, _ = _draw_twice((40000,), dtype, 1000)
    par, _, end_par, _ = _draw_twice((40000,), dtype, 1000, openmp=True,
                                     openmp_elemwise_minsize=10)
    for a, b in zip(serial, par):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(end_serial, end_par)


def test_not_in_place_leaves_the_input_state_alone():
    from jitgraph.backend_cpu.codegen.kernels import kernel_module
    from jitgraph.backend_cpu.lowering.random import mrg_source, run_mrg
    from jitgraph.backend_cpu.options import current_options
    from jitgraph.backend_cpu.runtime.parallel import run_chunks

    kernel = kernel_module(mrg_source("float64", current_options())).get("kernel")
    state = mrg31k3p.substream_states(mrg31k3p.seed_state(7), 5)
    before = state.copy()
    new, sample = run_mrg(kernel, run_chunks, state, np.array([4, 3]), "float64", False, 0)
    np.testing.assert_array_equal(state, before)
    want, want_state = mrg31k3p.uniform_sample(before, 12, "float64")
    np.testing.assert_array_equal(sample.reshape(-1), want)
    np.testing.assert_array_equal(new, want_state)
    strided = np.asfortranarray(before)  # advanced in place through a contiguous copy
    run_mrg(kernel, run_chunks, strided, np.array([12]), "float64", True, 0)
    np.testing.assert_array_equal(strided, want_state)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_kernel_rounds_and_thread_split(dtype, nthreads):
    """Every number of rounds modulo 3 (the rows holding each state word rotate), a last
    partial round ending before, inside and after each thread's groups of streams, and stream
    counts that are not a multiple of a group."""
    from jitgraph.backend_cpu.codegen.kernels import kernel_module
    from jitgraph.backend_cpu.lowering.random import GROUP, mrg_source, run_mrg
    from jitgraph.backend_cpu.options import current_options
    from jitgraph.backend_cpu.runtime.parallel import run_chunks

    kernel = kernel_module(mrg_source(dtype, current_options())).get("kernel")

    def split(kern, args, outer):
        run_chunks(kern, args, outer, nthreads)

    for ns in (1, 5, GROUP, 3 * GROUP + 7):
        state = mrg31k3p.substream_states(mrg31k3p.seed_state(11), ns)
        for rounds in range(7):
            for extra in sorted({0, 1, ns // 2, GROUP + 3, ns - 1}):
                n = rounds * ns + min(extra, ns - 1)
                new, sample = run_mrg(kernel, split, state, np.array([n]), dtype, False, 1)
                want, want_state = mrg31k3p.uniform_sample(state, n, dtype)
                np.testing.assert_array_equal(sample, want, err_msg=f"ns={ns} n={n}")
                np.testing.assert_array_equal(new, want_state, err_msg=f"ns={ns} n={n}")


def test_without_gc_an_intermediate_sample_keeps_its_buffer():
    """allow_gc=False: the buffer of a sample only used inside the graph is reused by the next
    call (same numbers as with gc); a sample returned to the caller is never overwritten."""
    import jitgraph.tensor as T

    def build(allow_gc):
        with jitgraph.config.change_flags(floatX="float64", allow_gc=allow_gc):
            srng = MRG_RandomStreams(3)
            inner = srng.uniform((3000,))
            return jitgraph.function([], [T.sum(inner * 2), srng.uniform((7,))])

    with_gc, without = build(True), build(False)
    kept = []
    for _ in range(3):
        a, b = with_gc(), without()
        assert a[0] == b[0]
        np.testing.assert_array_equal(a[1], b[1])
        kept.append((b[1], b[1].copy()))
    for returned, copy in kept:  # returned samples were not reused
        np.testing.assert_array_equal(returned, copy)
    assert kept[0][0] is not kept[1][0]


def _exact_fma(a, b, c, dtype):
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    x = np.array(float(exact), dtype=dtype)  # nearest double, then check float32 ties
    if dtype == "float32":
        below, above = np.nextafter(x, np.float32(-np.inf)), np.nextafter(x, np.float32(np.inf))
        x = min((below, x, above), key=lambda v: (abs(Fraction(float(v)) - exact),
                                                  int(np.float32(v).view(np.int32)) & 1))
    return np.asarray(x, dtype=dtype)


#: MRG's uniform numbers lie in [2**-31, 1); affine parameters are normal floats (the
#: error-free transformations assume no underflow)
_PARAMS = st.floats(-1e3, 1e3).filter(lambda v: v == 0 or abs(v) > 1e-30)


@settings(max_examples=80)
@given(st.sampled_from(["float32", "float64"]), st.floats(2.0**-32, 1), _PARAMS, _PARAMS)
def test_fma_is_rounded_once(dtype, a, b, c):
    a, b, c = (np.asarray(v, dtype=dtype) for v in (a, b, c))
    assert fma(a, b, c, dtype) == _exact_fma(a, b, c, dtype)


def test_fma_breaks_ties_of_the_product():
    """0.16615223889351996 * 1.5 is a tie of float64; the tiny c decides it."""
    a, b, c = np.float64(0.16615223889351996), np.float64(1.5), np.float64(-8.888123685788156e-67)
    assert fma(a, b, c, "float64") == _exact_fma(a, b, c, "float64")
    assert fma(a, b, -c, "float64") == _exact_fma(a, b, -c, "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_muladd_kernel_equals_perform(dtype):
    import jitgraph.tensor as T

    x = T.vector(dtype=dtype)
    lo, hi = np.asarray(0.1, dtype), np.asarray(0.7, dtype)
    with jitgraph.config.change_flags(floatX=dtype):
        srng = MRG_RandomStreams(3)
        f = jitgraph.function([], srng.uniform((3000,), low=lo, high=hi))
        g = jitgraph.function([], srng.uniform((3000,), low=lo, high=hi), mode="FAST_COMPILE")
    assert x.dtype == dtype
    state = srng.state_updates[0][0].get_value()
    u, _ = mrg31k3p.uniform_sample(state, 3000, dtype)
    want = fma(u, hi - lo, lo, dtype)
    np.testing.assert_array_equal(f(), want)
    assert g().dtype == dtype


# -- CUDA ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_kernel_compiles_with_nvrtc(dtype):
    from gpu_testing import ARCHS, compile_clean, needs_nvrtc

    from jitgraph.backend_gpu.lower_random import mrg_cuda_source

    needs_nvrtc()
    src = mrg_cuda_source(dtype)
    for arch in ARCHS:
        usage = compile_clean(src.source, src.file_name(), arch)
        assert usage.get("spill_stores", 0) == 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n, nstreams, words", [(1000, 7, "in range"), (5, 9, "in range"),
                                                (4096, 256, "in range"),
                                                (1000, 7, "any int32"), (3001, 257, "any int32")])
def test_cuda_kernel_run_on_cpu_equals_reference(dtype, n, nstreams, words):
    """In range, and for any int32 words (the states of negative seeds, stepped as Theano's
    C code steps them)."""
    import cpu_emulation

    from jitgraph.backend_gpu.lower_random import entry_name, mrg_cuda_source

    ok, why = cpu_emulation.available()
    if not ok:
        pytest.skip(why)
    src = mrg_cuda_source(dtype)
    if words == "in range":
        state = mrg31k3p.substream_states(mrg31k3p.seed_state([1, 2, 3, 4, 5, 6]), nstreams)
    else:
        rng = np.random.default_rng(nstreams)
        state = rng.integers(-2**31, 2**31, (nstreams, 6)).astype(np.int32)
        state[0] = -2**31
    out = np.empty(n, dtype=dtype)
    work = state.copy()
    cpu_emulation.launch(src.source, entry_name(dtype),
                         [work, out, np.int64(n), np.int64(nstreams)])
    want, want_state = mrg31k3p.uniform_sample(state, n, dtype)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(work, want_state)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_muladd_kernel_is_rounded_once(dtype):
    from jitgraph.backend_cpu.codegen.kernels import kernel_module
    from jitgraph.backend_cpu.lowering.random import muladd_source, run_muladd
    from jitgraph.backend_cpu.options import current_options

    kernel = kernel_module(muladd_source(dtype, current_options())).get("kernel")
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.random(5000), [0.16615223889351996]]).astype(dtype)
    for scale, shift in ((0.6, 0.1), (1.5, -8.888123685788156e-30), (1.5, 8.9e-30),
                         (-3.7, 2.25)):
        b, c = np.asarray(scale, dtype), np.asarray(shift, dtype)
        got = run_muladd(kernel, x, b, c)
        np.testing.assert_array_equal(got, fma(x, b, c, dtype))
        for k in (0, 1, 2, len(x) - 1):
            assert got[k] == _exact_fma(x[k], b, c, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_direct_call_falls_back_for_new_or_strided_states(dtype):
    """A constant-size draw calls the kernel straight from the driver; a state of another
    number of streams, or one that is not C-contiguous, takes the general path (same
    numbers), and a state of the wrong width is refused with a message naming it."""
    with jitgraph.config.change_flags(floatX=dtype):
        srng = MRG_RandomStreams(12345)
        f = jitgraph.function([], srng.uniform((4, 25)))
    state_var = srng.state_updates[0][0]

    def expect(state):
        want, new_state = mrg31k3p.uniform_sample(state, 100, dtype)
        return want.reshape(4, 25), new_state

    for make in (lambda s: s, lambda s: s[:7].copy(),  # same streams, fewer streams
                 lambda s: np.asfortranarray(s), lambda s: s):
        start = make(state_var.get_value())
        state_var.set_value(start, borrow=True)
        want, new_state = expect(np.ascontiguousarray(start))
        for _ in range(2):
            np.testing.assert_array_equal(f(), want)
            np.testing.assert_array_equal(state_var.get_value(), new_state)
            want, new_state = expect(new_state)
    state_var.set_value(np.ones((5, 5), np.int32))
    with pytest.raises(ValueError, match="n_streams, 6"):
        f()
