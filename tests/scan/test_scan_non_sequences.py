"""Non-sequences are inputs of the loop, computed once before its first step, as in Theano 1.0.5
(the expected values were printed by Theano 1.0.5 running the same programs).

Keras 1.2.2's recurrent layers pass a dropout mask drawn from an ``MRG_RandomStreams`` as a
non-sequence: the mask was drawn anew at every step (its generator state was taken as a state of
the loop), and training gave other losses than Theano's.
"""

import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.sandbox.rng_mrg import MRG_RandomStreams


def test_random_non_sequence_is_drawn_once_and_its_stream_not_advanced_by_the_loop():
    x = T.dmatrix("x")
    rng = MRG_RandomStreams(seed=123)
    mask = rng.uniform((5,), dtype="float64")
    outs, updates = jitgraph.scan(
        lambda xt, h, m: h + xt * m + rng.uniform((5,), dtype="float64"), sequences=[x],
        outputs_info=[T.zeros((5,), dtype="float64")], non_sequences=[mask])
    assert len(updates) == 1  # the draw inside the step; the mask's stream is not the loop's
    ones = np.ones((3, 5))
    with_mask = jitgraph.function([x], [outs, mask])
    first, drawn = with_mask(ones)
    np.testing.assert_allclose(drawn, [0.236488, 0.571233, 0.517734, 0.80574, 0.122299],
                               atol=1e-6)
    np.testing.assert_allclose(first, [[0.506052, 1.376251, 1.363022, 1.358454, 0.327001],
                                       [1.113021, 2.60447, 2.126756, 2.320917, 0.805242],
                                       [2.109863, 3.23802, 3.543591, 3.915487, 1.49008]],
                               atol=1e-6)
    step = jitgraph.function([x], outs, updates=updates)
    np.testing.assert_allclose(step(ones), [[0.605761, 1.531336, 0.917304, 0.450135, 1.081108],
                                            [1.601397, 2.468002, 2.487709, 1.532378, 2.368811],
                                            [2.522359, 3.703891, 3.270753, 2.673039, 3.396468]],
                               atol=1e-6)
    np.testing.assert_allclose(step(ones), [[0.490922, 1.034316, 0.311576, 1.478828, 1.345239],
                                            [1.916519, 1.723354, 0.672166, 2.389156, 2.037045],
                                            [2.972708, 2.439533, 1.071006, 3.624284, 2.999153]],
                               atol=1e-6)


def test_dropout_mask_non_sequence_is_the_same_at_every_step():
    x = T.tensor3("x")
    ones = T.tile(T.ones_like(x[:, 0, 0].reshape((-1, 1))), (1, 4))
    mask = MRG_RandomStreams(seed=123).binomial(ones.shape, p=0.9, dtype="float32") * ones
    outs, _ = jitgraph.scan(lambda xt, h, m: h * 0.5 + m, sequences=[x.dimshuffle(1, 0, 2)],
                            outputs_info=[T.zeros_like(ones)], non_sequences=[mask])
    run = jitgraph.function([x], outs)(np.zeros((8, 6, 5), dtype="float32"))
    expected = np.where(np.isin(np.arange(32), [19, 26]), 0.0, 1.96875)  # two units masked
    np.testing.assert_allclose(run[-1].ravel(), expected)


def test_non_sequence_of_a_shared_variable_the_step_updates_keeps_its_first_value():
    w = jitgraph.shared(np.arange(3.0), name="W")
    outs, updates = jitgraph.scan(lambda h, m: (h + m + w, {w: w + 1}),
                                  outputs_info=[T.zeros(3, dtype="float64")],
                                  non_sequences=[w * 2], n_steps=3)
    step = jitgraph.function([], outs, updates=updates)
    np.testing.assert_allclose(step(), [[0, 3, 6], [1, 7, 13], [3, 12, 21]])
    np.testing.assert_allclose(w.get_value(), [3, 4, 5])
    np.testing.assert_allclose(step(), [[9, 12, 15], [19, 25, 31], [30, 39, 48]])


def test_a_non_sequence_the_step_does_not_read_counts_as_used():
    # Theano 1.0.5 (oracle) compiles this and gives [2, 4]; before, function() raised
    # UnusedInputError for y
    x, y = T.dvector("x"), T.dvector("y")
    out, _ = jitgraph.scan(lambda i, x, y: x[i] * 2, sequences=T.arange(x.shape[0]),
                           non_sequences=[x, y])
    f = jitgraph.function([x, y], out)
    assert f([1.0, 2.0], [5.0]).tolist() == [2.0, 4.0]
    # what the step does read is not listed twice
    op = out.owner.op
    assert op.info.n_non_seqs == 2
