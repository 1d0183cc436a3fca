"""A Keras 2.3.1 model on its Theano backend, run by jitgraph with no change to Keras.

    pip install -e . ./compat/theano-on-jitgraph keras==2.3.1
    KERAS_BACKEND=theano python examples/keras_mnist_like.py

(or, without installing the hook: ``python -m jitgraph.theano_compat
examples/keras_mnist_like.py``). A two-layer classifier learns ten classes of synthetic 8x8
"images" made by a random linear teacher; it prints the loss of each epoch and the final
accuracy, the numbers Theano 1.0.5 prints for the same program (tests/examples checks them).
"""

import collections
import collections.abc
import os

import numpy as np

# Keras 2.3.1 predates Python 3.10 and NumPy 2: restore the three names it still uses.
for _name in ("Iterable", "Mapping", "Sequence"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))
if not hasattr(np, "Inf"):
    np.Inf = np.inf
os.environ.setdefault("KERAS_BACKEND", "theano")

import keras  # noqa: E402
from keras.layers import Dense  # noqa: E402
from keras.models import Sequential  # noqa: E402
from keras.optimizers import SGD  # noqa: E402


def make_data(rng, n=512, features=64, classes=10):
    x = rng.rand(n, features).astype("float32")
    teacher = rng.randn(features, classes)
    labels = np.argmax(x.dot(teacher), axis=1)
    return x, np.eye(classes, dtype="float32")[labels]


def main():
    np.random.seed(0)  # Keras' Theano backend draws the initial weights with NumPy
    x, y = make_data(np.random.RandomState(1234))
    model = Sequential([Dense(32, activation="relu", input_shape=(x.shape[1],)),
                        Dense(y.shape[1], activation="softmax")])
    model.compile(optimizer=SGD(lr=0.3), loss="categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=64, epochs=8, shuffle=False, verbose=0)
    for epoch, loss in enumerate(history.history["loss"], 1):
        print(f"epoch {epoch}: loss {loss:.6f}")
    loss, accuracy = model.evaluate(x, y, verbose=0)
    print(f"final: loss {loss:.6f} accuracy {accuracy:.4f}")
    print(f"backend: {keras.backend.backend()}")


if __name__ == "__main__":
    main()
