"""Keras 2.3.1 models on the Theano backend, trained for two epochs: the way most people ran
Theano in 2017-2019. Run as a script, it prints a JSON object ``{model: [losses..., outputs...]}``
for the sections named on the command line (``dense``, ``cnn``, ``rnn``).

``test_keras.py`` runs it with ``theano`` meaning jitgraph (``JITGRAPH_AS_THEANO=1``) and
compares with ``expected/keras_<section>.json``, recorded under the real Theano 1.0.5:

    ../shared/tools/theano-oracle tests/programs/keras_models.py --record dense cnn
    ORACLE_PY=1 ../shared/tools/theano-oracle tests/programs/keras_models.py --record rnn

(Theano's C scan does not compile on Python 3.11, so ``rnn`` is recorded with ``cxx=``; its
convolutions need the C code, so ``cnn`` is recorded without.) Recurrent kernels use
``glorot_uniform``: Keras' default ``orthogonal`` initializer goes through ``numpy.linalg.svd``,
whose signs differ between NumPy/LAPACK builds, which would compare NumPy versions, not Theano.
"""

import collections
import collections.abc
import json
import os
import sys
import warnings

# Keras 2.3.1 imports these from `collections`, which Python 3.10 removed.
for _name in ("Iterable", "Mapping", "MutableMapping", "Sequence", "Callable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

HERE = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("JITGRAPH_AS_THEANO") == "1":
    sys.path.insert(0, HERE)
    import importlib

    from theano_alias import _TheanoFinder

    sys.meta_path.insert(0, _TheanoFinder())
    importlib.invalidate_caches()

os.environ["KERAS_BACKEND"] = "theano"
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # "Using Theano backend."
try:
    import keras  # noqa: E402
    from keras import layers as L  # noqa: E402
    from keras.models import Model, Sequential  # noqa: E402
finally:
    sys.stderr.close()
    sys.stderr = stderr


def train(model, optimizer, loss, x, y, epochs=2):
    """Losses of each epoch, then the first outputs of the trained model."""
    model.compile(optimizer, loss)
    history = model.fit(x, y, epochs=epochs, batch_size=16, verbose=0, shuffle=False)
    outputs = np.asarray(model.predict(x[:2]), dtype="float64").ravel()[:6]
    return [float(v) for v in history.history["loss"]] + outputs.tolist()


def dense_models():
    np.random.seed(1)
    x = np.random.rand(64, 12).astype("float32")
    y = (x.sum(1, keepdims=True) > 6).astype("float32")
    results = {}
    for optimizer in ("sgd", "adam", "rmsprop", "adagrad", "adadelta", "adamax", "nadam"):
        model = Sequential([L.Dense(16, activation="relu", input_dim=12), L.Dropout(0.2),
                            L.Dense(8, activation="tanh"), L.Dense(1, activation="sigmoid")])
        results["mlp-" + optimizer] = train(model, optimizer, "binary_crossentropy", x, y)
    classes = keras.utils.to_categorical(np.random.randint(0, 3, 64), 3)
    model = Sequential([L.Dense(10, input_dim=12), L.LeakyReLU(0.1), L.BatchNormalization(),
                        L.Dense(3, activation="softmax")])
    results["softmax-bn"] = train(model, "sgd", "categorical_crossentropy", x, classes)
    return results


def cnn_models():
    np.random.seed(2)
    results = {}
    x = np.random.rand(64, 12, 12, 1).astype("float32")
    y = keras.utils.to_categorical(np.random.randint(0, 3, 64), 3)
    model = Sequential([
        L.Conv2D(4, (3, 3), activation="relu", input_shape=(12, 12, 1), padding="same"),
        L.BatchNormalization(), L.MaxPooling2D((2, 2)), L.Conv2D(6, (3, 3), strides=2),
        L.AveragePooling2D(), L.Flatten(), L.Dropout(0.3), L.Dense(3, activation="softmax")])
    results["cnn"] = train(model, "sgd", "categorical_crossentropy", x, y)

    inputs = L.Input((10, 3))
    causal = L.Conv1D(4, 3, padding="causal", dilation_rate=2)(inputs)
    same = L.Conv1D(4, 3, padding="same")(inputs)
    merged = L.UpSampling1D(2)(L.concatenate([causal, same]))
    merged = L.LeakyReLU(0.1)(L.MaxPooling1D(2)(merged))
    outputs = L.Dense(2, activation="softmax")(L.Flatten()(merged))
    x1 = np.random.rand(32, 10, 3)
    y1 = keras.utils.to_categorical(np.random.randint(0, 2, 32), 2)
    results["conv1d"] = train(Model(inputs, outputs), "adagrad", "categorical_crossentropy",
                              x1, y1)

    model = Sequential([L.ZeroPadding2D(1, input_shape=(8, 8, 2)), L.SeparableConv2D(3, (3, 3)),
                        L.Conv2DTranspose(2, (3, 3), strides=2), L.Cropping2D(1),
                        L.GlobalAveragePooling2D(), L.Dense(1)])
    x2 = np.random.rand(16, 8, 8, 2)
    results["deconv"] = train(model, "adadelta", "mse", x2, np.random.rand(16, 1))
    return results


def rnn_models():
    np.random.seed(3)
    results = {}
    words = np.random.randint(1, 20, size=(48, 7))
    words[:10, 5:] = 0  # padding, masked by the embedding
    labels = np.random.randint(0, 2, size=(48, 1))
    for cell in (L.LSTM, L.GRU, L.SimpleRNN):
        model = Sequential([L.Embedding(20, 5, mask_zero=True, input_length=7),
                            cell(6, recurrent_initializer="glorot_uniform"),
                            L.Dense(1, activation="sigmoid")])
        results[cell.__name__] = train(model, "rmsprop", "binary_crossentropy", words, labels)
    model = Sequential([
        L.Embedding(20, 4, input_length=7),
        L.Bidirectional(L.LSTM(3, return_sequences=True, recurrent_initializer="glorot_uniform")),
        L.TimeDistributed(L.Dense(2)), L.GlobalMaxPooling1D(), L.Dense(1, activation="sigmoid")])
    results["bidirectional-lstm"] = train(model, "adam", "binary_crossentropy", words, labels)
    return results


SECTIONS = {"dense": dense_models, "cnn": cnn_models, "rnn": rnn_models}


def main(argv):
    record = "--record" in argv
    names = [a for a in argv if not a.startswith("--")]
    for name in names:
        results = SECTIONS[name]()
        if record:
            path = os.path.join(HERE, "expected", "keras_%s.json" % name)
            with open(path, "w") as out:
                json.dump(results, out, indent=1, sort_keys=True)
                out.write("\n")
        print(json.dumps({name: results}))


if __name__ == "__main__":
    main(sys.argv[1:])
