"""A LeNet-style convolutional network written the way Theano's deep-learning tutorials wrote
theirs: layer classes holding shared weights, ``nnet.conv2d`` + ``pool.pool_2d`` + ``tanh``
layers, a hidden layer, a logistic-regression output, minibatches taken from shared data sets
through ``givens``, SGD updates, validation/test error rates.

``run(theano)`` runs it with the module it is given (the real Theano under the oracle, or
``jitgraph``) on a small synthetic data set and returns every number it reports, so that the
test can compare jitgraph's with Theano 1.0.5's (recorded in ``data/lenet_oracle.json`` by
``data/record_lenet_oracle.py``). NumPy only besides the given module.
"""

from __future__ import annotations

import numpy as np

BATCH = 20
N_TRAIN, N_VALID, N_TEST = 100, 40, 40
IMAGE = 28
NKERNS = (4, 6)
HIDDEN = 50
EPOCHS = 3
LEARNING_RATE = 0.1


def synthetic_digits(rng: np.random.RandomState, sizes: tuple[int, ...]
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Data sets of ``sizes`` 28x28 images of 10 classes: class templates (random binary
    patterns, shared by the sets) plus noise."""
    templates = (rng.uniform(0, 1, (10, IMAGE * IMAGE)) > 0.7) * 1.0
    sets = []
    for n in sizes:
        labels = rng.randint(0, 10, n)
        sets.append((templates[labels] * 0.8 + rng.uniform(0, 0.4, (n, IMAGE * IMAGE)), labels))
    return sets


def run(theano) -> dict:
    import importlib

    T = theano.tensor
    # ``from theano.tensor.signal import pool``, for whichever module ``theano`` is
    pool = importlib.import_module(f"{theano.__name__}.tensor.signal.pool")

    floatx = "float64"
    rng = np.random.RandomState(1234)

    def shared_dataset(xy):
        data_x, data_y = xy
        shared_x = theano.shared(np.asarray(data_x, dtype=floatx), borrow=True)
        shared_y = theano.shared(np.asarray(data_y, dtype=floatx), borrow=True)
        return shared_x, T.cast(shared_y, "int32")

    train, valid, test = synthetic_digits(rng, (N_TRAIN, N_VALID, N_TEST))
    train_x, train_y = shared_dataset(train)
    valid_x, valid_y = shared_dataset(valid)
    test_x, test_y = shared_dataset(test)

    class ConvPoolLayer:
        def __init__(self, rng, input, filter_shape, image_shape, poolsize=(2, 2)):
            fan_in = np.prod(filter_shape[1:])
            fan_out = filter_shape[0] * np.prod(filter_shape[2:]) // np.prod(poolsize)
            bound = np.sqrt(6.0 / (fan_in + fan_out))
            self.W = theano.shared(np.asarray(rng.uniform(-bound, bound, filter_shape),
                                              dtype=floatx), borrow=True)
            self.b = theano.shared(np.zeros((filter_shape[0],), dtype=floatx), borrow=True)
            conv_out = theano.tensor.nnet.conv2d(input=input, filters=self.W,
                                                 filter_shape=filter_shape,
                                                 input_shape=image_shape)
            pooled = pool.pool_2d(input=conv_out, ws=poolsize, ignore_border=True)
            self.output = T.tanh(pooled + self.b.dimshuffle("x", 0, "x", "x"))
            self.params = [self.W, self.b]

    class HiddenLayer:
        def __init__(self, rng, input, n_in, n_out):
            bound = np.sqrt(6.0 / (n_in + n_out))
            self.W = theano.shared(np.asarray(rng.uniform(-bound, bound, (n_in, n_out)),
                                              dtype=floatx), borrow=True)
            self.b = theano.shared(np.zeros((n_out,), dtype=floatx), borrow=True)
            self.output = T.tanh(T.dot(input, self.W) + self.b)
            self.params = [self.W, self.b]

    class LogisticRegression:
        def __init__(self, input, n_in, n_out):
            self.W = theano.shared(np.zeros((n_in, n_out), dtype=floatx), borrow=True)
            self.b = theano.shared(np.zeros((n_out,), dtype=floatx), borrow=True)
            self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
            self.y_pred = T.argmax(self.p_y_given_x, axis=1)
            self.params = [self.W, self.b]

        def negative_log_likelihood(self, y):
            return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

        def errors(self, y):
            return T.mean(T.neq(self.y_pred, y))

    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    layer0_input = x.reshape((BATCH, 1, IMAGE, IMAGE))
    layer0 = ConvPoolLayer(rng, layer0_input, (NKERNS[0], 1, 5, 5), (BATCH, 1, IMAGE, IMAGE))
    size1 = (IMAGE - 4) // 2
    layer1 = ConvPoolLayer(rng, layer0.output, (NKERNS[1], NKERNS[0], 5, 5),
                           (BATCH, NKERNS[0], size1, size1))
    size2 = (size1 - 4) // 2
    layer2 = HiddenLayer(rng, layer1.output.flatten(2), NKERNS[1] * size2 * size2, HIDDEN)
    layer3 = LogisticRegression(layer2.output, HIDDEN, 10)
    cost = layer3.negative_log_likelihood(y)

    def batch(data, i):
        return data[i * BATCH:(i + 1) * BATCH]

    test_model = theano.function([index], layer3.errors(y),
                                 givens={x: batch(test_x, index), y: batch(test_y, index)})
    validate_model = theano.function([index], layer3.errors(y),
                                     givens={x: batch(valid_x, index), y: batch(valid_y, index)})
    params = layer3.params + layer2.params + layer1.params + layer0.params
    grads = T.grad(cost, params)
    updates = [(p, p - LEARNING_RATE * g) for p, g in zip(params, grads)]
    train_model = theano.function([index], cost, updates=updates,
                                  givens={x: batch(train_x, index), y: batch(train_y, index)})

    report = {"train_cost": [], "validation_error": [], "test_error": []}
    for _ in range(EPOCHS):
        for i in range(N_TRAIN // BATCH):
            report["train_cost"].append(float(train_model(i)))
        report["validation_error"].append(
            float(np.mean([validate_model(i) for i in range(N_VALID // BATCH)])))
        report["test_error"].append(float(np.mean([test_model(i) for i in range(N_TEST // BATCH)])))
    report["W0_sum"] = float(layer0.W.get_value().sum())
    report["W1_abs_sum"] = float(np.abs(layer1.W.get_value()).sum())
    report["W3_sq_sum"] = float((layer3.W.get_value() ** 2).sum())
    return report
