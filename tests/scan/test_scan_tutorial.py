"""The scan examples of Theano's tutorial (doc/tutorial/loop.txt and doc/library/scan.txt), as
the pages write them (random-stream examples left to the random-streams tests). Expected values
are what the pages print, checked against Theano 1.0.5."""

from __future__ import annotations

import numpy as np

import jitgraph as theano
import jitgraph.scan_module
import jitgraph.tensor as T
from jitgraph.scan import scan

floatX = theano.config.floatX


def test_tanh_of_dot_elementwise():
    X, W, b_sym = T.matrix("X"), T.matrix("W"), T.vector("b_sym")
    results, updates = scan(lambda v: T.tanh(T.dot(v, W) + b_sym), sequences=X)
    compute_elementwise = theano.function(inputs=[X, W, b_sym], outputs=results)
    x = np.eye(2, dtype=floatX)
    w = np.ones((2, 2), dtype=floatX)
    b = np.ones((2), dtype=floatX)
    b[1] = 2
    np.testing.assert_allclose(compute_elementwise(x, w, b),
                               [[0.96402758, 0.99505475], [0.96402758, 0.99505475]], rtol=1e-7)


def test_sequence_with_reversed_input():
    X, W, U, Y, V, P = (T.vector("X"), T.matrix("W"), T.matrix("U"), T.matrix("Y"),
                        T.matrix("V"), T.matrix("P"))
    results, updates = scan(lambda y, p, x_tm1: T.tanh(T.dot(x_tm1, W) + T.dot(y, U)
                                                       + T.dot(p, V)),
                            sequences=[Y, P[::-1]], outputs_info=[X])
    compute_seq = theano.function(inputs=[X, W, Y, U, P, V], outputs=results)
    x = np.zeros((2), dtype=floatX)
    x[1] = 1
    w = np.ones((2, 2), dtype=floatX)
    y = np.ones((5, 2), dtype=floatX)
    y[0, :] = -3
    u = np.ones((2, 2), dtype=floatX)
    p = np.ones((5, 2), dtype=floatX)
    p[0, :] = 3
    v = np.ones((2, 2), dtype=floatX)
    want = [[-0.99505475, -0.99505475], [0.96471973, 0.96471973], [0.99998585, 0.99998585],
            [0.99998771, 0.99998771], [1., 1.]]
    np.testing.assert_allclose(compute_seq(x, w, y, u, p, v), want, rtol=1e-7)


def test_norms_of_lines_and_columns():
    X = T.matrix("X")
    lines, _ = scan(lambda x_i: T.sqrt((x_i ** 2).sum()), sequences=[X])
    cols, _ = scan(lambda x_i: T.sqrt((x_i ** 2).sum()), sequences=[X.T])
    f = theano.function([X], [lines, cols])
    x = np.diag(np.arange(1, 6, dtype=floatX), 1)
    got_lines, got_cols = f(x)
    np.testing.assert_allclose(got_lines, [1, 2, 3, 4, 5, 0])
    np.testing.assert_allclose(got_cols, [0, 1, 2, 3, 4, 5])


def test_trace_with_a_closure():
    X = T.matrix("X")
    results, updates = scan(lambda i, j, t_f: T.cast(X[i, j] + t_f, "float32"),
                            sequences=[T.arange(X.shape[0]), T.arange(X.shape[1])],
                            outputs_info=np.asarray(0., dtype="float32"))
    compute_trace = theano.function(inputs=[X], outputs=results[-1])
    x = np.eye(5, dtype=floatX)
    x[0] = np.arange(5, dtype=floatX)
    assert compute_trace(x) == 4.0


def test_two_taps_recurrence():
    X, W, b_sym, U, V = T.matrix("X"), T.matrix("W"), T.vector("b_sym"), T.matrix("U"), \
        T.matrix("V")
    n_sym = T.iscalar("n_sym")
    results, updates = scan(lambda x_tm2, x_tm1: T.dot(x_tm2, U) + T.dot(x_tm1, V)
                            + T.tanh(T.dot(x_tm1, W) + b_sym),
                            n_steps=n_sym, outputs_info=[dict(initial=X, taps=[-2, -1])])
    compute_seq2 = theano.function(inputs=[X, U, V, W, b_sym, n_sym], outputs=results)
    x = np.zeros((2, 2), dtype=floatX)
    x[1, 1] = 1
    w = 0.5 * np.ones((2, 2), dtype=floatX)
    u = 0.5 * (np.ones((2, 2), dtype=floatX) - np.eye(2, dtype=floatX))
    v = 0.5 * np.ones((2, 2), dtype=floatX)
    b = np.ones((2), dtype=floatX)
    want = [[1.40514825, 1.40514825], [2.88898899, 2.38898899], [4.34018291, 4.34018291],
            [6.53463142, 6.78463142], [9.82972243, 9.82972243], [14.22203814, 14.09703814],
            [20.07439936, 20.07439936], [28.12291843, 28.18541843], [39.1913681, 39.1913681],
            [54.28407732, 54.25282732]]
    np.testing.assert_allclose(compute_seq2(x, u, v, w, b, 10), want, rtol=1e-8)


def test_accumulate_with_a_shared_variable():
    k = theano.shared(0)
    n_sym = T.iscalar("n_sym")
    results, updates = scan(lambda: {k: (k + 1)}, n_steps=n_sym)
    accumulator = theano.function([n_sym], [], updates=updates, allow_input_downcast=True)
    assert k.get_value() == 0
    accumulator(5)
    assert k.get_value() == 5


def test_power_and_polynomial():
    k = T.iscalar("k")
    A = T.vector("A")
    result, updates = scan(fn=lambda prior_result, B: prior_result * B,
                           outputs_info=T.ones_like(A), non_sequences=A, n_steps=k)
    power = theano.function(inputs=[A, k], outputs=result[-1], updates=updates)
    np.testing.assert_allclose(power(range(10), 2), [0, 1, 4, 9, 16, 25, 36, 49, 64, 81])
    coefficients = T.vector("coefficients")
    x = T.scalar("x")
    components, updates = scan(fn=lambda coeff, power, free_var: coeff * (free_var ** power),
                               outputs_info=None,
                               sequences=[coefficients, T.arange(10000)], non_sequences=x)
    calculate_polynomial = theano.function(inputs=[coefficients, x],
                                           outputs=components.sum())
    assert calculate_polynomial(np.asarray([1, 0, 2], dtype=np.float32), 3) == 19.0


def test_library_page_examples():
    up_to = T.iscalar("up_to")
    seq = T.arange(up_to)
    scan_result, _ = scan(fn=lambda arange_val, sum_to_date: sum_to_date + arange_val,
                          outputs_info=T.as_tensor_variable(np.asarray(0, seq.dtype)),
                          sequences=seq)
    triangular = theano.function(inputs=[up_to], outputs=scan_result)
    np.testing.assert_array_equal(triangular(15), [n * (n + 1) // 2 for n in range(15)])

    location, values = T.imatrix("location"), T.vector("values")
    output_model = T.matrix("output_model")

    def set_value_at_position(a_location, a_value, output_model):
        zeros = T.zeros_like(output_model)
        return T.set_subtensor(zeros[a_location[0], a_location[1]], a_value)

    result, _ = scan(fn=set_value_at_position, outputs_info=None,
                     sequences=[location, values], non_sequences=output_model)
    assign = theano.function(inputs=[location, values, output_model], outputs=result)
    got = assign(np.asarray([[1, 1], [2, 3]], dtype=np.int32),
                 np.asarray([42, 50], dtype=np.float32), np.zeros((5, 5), dtype=np.float32))
    want = np.zeros((2, 5, 5))
    want[0, 1, 1], want[1, 2, 3] = 42, 50
    np.testing.assert_array_equal(got, want)

    def power_of_2(previous_power, max_value):
        return previous_power * 2, jitgraph.scan_module.until(previous_power * 2 > max_value)

    max_value = T.scalar()
    values, _ = scan(power_of_2, outputs_info=T.constant(1.), non_sequences=max_value,
                     n_steps=1024)
    np.testing.assert_array_equal(theano.function([max_value], values)(45),
                                  [2, 4, 8, 16, 32, 64])
