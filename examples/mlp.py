"""A multilayer perceptron (two hidden layers, softmax cross-entropy) trained by gradient descent
on synthetic, linearly separable-ish data.

    python examples/mlp.py            # 784-256-128-10 on 2000 samples
"""

from __future__ import annotations

import sys

import numpy as np

import jitgraph
import jitgraph.tensor as T


def make_data(n_samples: int, n_in: int, n_classes: int, seed: int = 0):
    """Gaussian blobs, one per class, so that a small MLP can fit them."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(0.0, 2.0, size=(n_classes, n_in))
    labels = rng.integers(0, n_classes, size=n_samples)
    features = centers[labels] + rng.normal(0.0, 1.0, size=(n_samples, n_in))
    return features.astype(jitgraph.config.floatX), labels.astype("int64")


def init_params(sizes: list[int], seed: int = 1):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        scale = np.sqrt(2.0 / (n_in + n_out))
        w = jitgraph.shared(rng.normal(0.0, scale, (n_in, n_out)).astype(jitgraph.config.floatX),
                            name=f"W{len(params) // 2}")
        b = jitgraph.shared(np.zeros(n_out, dtype=jitgraph.config.floatX),
                            name=f"b{len(params) // 2}")
        params += [w, b]
    return params


def build_training(sizes: list[int], learning_rate: float = 0.1, mode=None, seed: int = 1):
    """Compile (train, predict) for an MLP with the given layer sizes; returns them and the
    shared parameters."""
    x = T.matrix("x")
    y = T.lvector("y")
    params = init_params(sizes, seed)
    hidden = x
    for k in range(0, len(params) - 2, 2):
        hidden = T.tanh(T.dot(hidden, params[k]) + params[k + 1])
    probs = T.nnet.softmax(T.dot(hidden, params[-2]) + params[-1])
    cost = T.nnet.categorical_crossentropy(probs, y).mean()
    grads = T.grad(cost, params)
    lr = np.asarray(learning_rate, dtype=jitgraph.config.floatX)
    updates = [(p, p - lr * g) for p, g in zip(params, grads)]
    train = jitgraph.function([x, y], cost, updates=updates, mode=mode, name="mlp_train")
    predict = jitgraph.function([x], T.argmax(probs, axis=1), mode=mode, name="mlp_predict")
    return train, predict, params


def main(sizes=(784, 256, 128, 10), n_samples=2000, steps=50) -> float:
    features, labels = make_data(n_samples, sizes[0], sizes[-1])
    train, predict, _ = build_training(list(sizes))
    for step in range(steps):
        cost = train(features, labels)
        if step % 10 == 0 or step == steps - 1:
            print(f"step {step:4d}  cost {float(cost):.4f}")
    accuracy = float(np.mean(predict(features) == labels))
    print(f"training accuracy: {accuracy:.3f}")
    return accuracy


if __name__ == "__main__":
    main(steps=int(sys.argv[1]) if len(sys.argv) > 1 else 50)
