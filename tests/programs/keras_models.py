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

import json
import os
import sys

import keras_setup  # noqa: F401  (before Keras: the theano alias and the compatibility shims)
import numpy as np  # noqa: E402

import keras  # noqa: E402
from keras import layers as L  # noqa: E402
from keras.models import Model, Sequential  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


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


def backend_cases():
    """Keras backend functions on fixed inputs, by name (each a thunk building the graph)."""
    from keras import backend as K

    rng = np.random.RandomState(0)
    a = rng.rand(2, 3, 4).astype("float32")
    m = rng.rand(3, 4).astype("float32")
    v = rng.rand(4).astype("float32")
    A, M, V = K.variable(a), K.variable(m), K.variable(v)
    img = K.variable(rng.rand(2, 5, 6, 3).astype("float32"))
    vol = K.variable(rng.rand(1, 4, 4, 4, 2).astype("float32"))
    return {
        "batch_dot": lambda: K.batch_dot(A, K.permute_dimensions(A, (0, 2, 1)), axes=[2, 1]),
        "batch_dot2": lambda: K.batch_dot(K.variable(rng.rand(2, 3).astype("float32")), K.variable(rng.rand(2, 3).astype("float32")), axes=1),
        "l2_normalize": lambda: K.l2_normalize(A, axis=-1),
        "logsumexp": lambda: K.logsumexp(A, axis=1),
        "std": lambda: K.std(A, axis=1, keepdims=True), "var": lambda: K.var(A),
        "cumsum": lambda: K.cumsum(A, axis=1), "cumprod": lambda: K.cumprod(A, axis=2),
        "argmax": lambda: K.argmax(A, axis=-1), "one_hot": lambda: K.one_hot(K.variable(np.array([[0, 2], [1, 3]]), dtype="int32"), 4),
        "gather": lambda: K.gather(M, K.variable(np.array([2, 0, 2]), dtype="int32")),
        "repeat_elements": lambda: K.repeat_elements(A, 2, axis=1), "tile": lambda: K.tile(M, (2, 1)),
        "batch_flatten": lambda: K.batch_flatten(A), "stack": lambda: K.stack([M, M * 2], axis=1),
        "reverse": lambda: K.reverse(A, axes=(0, 2)), "slice": lambda: K.slice(A, (0, 1, 1), (2, 2, 2)),
        "bias_add": lambda: K.bias_add(img, K.variable(np.arange(3.).astype("float32"))),
        "softsign": lambda: K.softsign(A - 0.5), "elu": lambda: K.elu(A - 0.5, 0.7), "hard_sigmoid": lambda: K.hard_sigmoid(A * 6 - 3),
        "relu": lambda: K.relu(A - 0.5, alpha=0.1, max_value=0.3, threshold=0.1),
        "resize_images": lambda: K.resize_images(img, 2, 3, "channels_last"),
        "resize_bilinear": lambda: K.resize_images(img, 2, 2, "channels_last", interpolation="bilinear"),
        "spatial_2d_padding": lambda: K.spatial_2d_padding(img, ((1, 0), (2, 1))),
        "pool2d_max_same": lambda: K.pool2d(img, (3, 3), (2, 2), padding="same", pool_mode="max"),
        "pool2d_avg_same": lambda: K.pool2d(img, (3, 3), (2, 2), padding="same", pool_mode="avg"),
        "pool3d": lambda: K.pool3d(vol, (2, 2, 2), (2, 2, 2), pool_mode="avg"),
        "conv3d": lambda: K.conv3d(vol, K.variable(rng.rand(2, 2, 2, 2, 3).astype("float32")), padding="same"),
        "conv2d_dil": lambda: K.conv2d(img, K.variable(rng.rand(2, 2, 3, 4).astype("float32")), dilation_rate=(2, 1)),
        "depthwise": lambda: K.depthwise_conv2d(img, K.variable(rng.rand(3, 3, 3, 2).astype("float32")), padding="same"),
        "conv2d_transpose": lambda: K.conv2d_transpose(img, K.variable(rng.rand(3, 3, 4, 3).astype("float32")), (2, 11, 13, 4), strides=(2, 2)),
        "local_conv2d": lambda: K.local_conv2d(K.variable(rng.rand(2, 4, 4, 2).astype("float32")), K.variable(rng.rand(9, 8, 3).astype("float32")), (2, 2), (1, 1), (3, 3), "channels_last"),
        "cce_logits": lambda: K.categorical_crossentropy(K.variable(np.eye(3)[[0, 2]].astype("float32")), K.variable(rng.rand(2, 3).astype("float32")), from_logits=True),
        "bce_logits": lambda: K.binary_crossentropy(K.variable(np.array([0., 1.]).astype("float32")), K.variable(np.array([0.3, -1.2]).astype("float32")), from_logits=True),
        "in_top_k": lambda: K.in_top_k(K.variable(rng.rand(3, 5).astype("float32")), K.variable(np.array([1, 2, 3]), dtype="int32"), 2),
        "switch": lambda: K.switch(K.greater(A, 0.5), A, -A),
        "foldl": lambda: K.foldl(lambda acc, x: acc + x, M, initializer=K.zeros((4,))),
        "foldr": lambda: K.foldr(lambda acc, x: acc * x, M),
        "map_fn": lambda: K.map_fn(lambda r: r * 2 + 1, M),
        "grad": lambda: K.gradients(K.sum(K.tanh(A) * V), [A])[0],
        "stop_gradient": lambda: K.gradients(K.sum(K.stop_gradient(A) * A), [A])[0],
        "normalize_bn": lambda: K.normalize_batch_in_training(A, K.ones((4,)), K.zeros((4,)), [0, 1])[0],
        "ctc": lambda: K.ctc_batch_cost(K.variable(np.array([[1, 2], [2, 2]]), dtype="int32"), K.softmax(K.variable(rng.rand(2, 5, 4).astype("float32"))), K.variable(np.array([[5], [4]]), dtype="int32"), K.variable(np.array([[2], [2]]), dtype="int32")),
        "rnn": lambda: K.rnn(lambda x, s: (x + s[0], [x + s[0]]), A, [K.zeros((2, 4))], go_backwards=True)[1],
        "rnn_mask": lambda: K.rnn(lambda x, s: (x * 2 + s[0], [x * 2 + s[0]]), A, [K.zeros((2, 4))], mask=K.variable(np.array([[1, 1, 0], [1, 0, 0]]).astype("float32")))[1],
        "sqrt_neg": lambda: K.sqrt(A - 0.5), "clip": lambda: K.clip(A, 0.2, 0.6), "round": lambda: K.round(A * 4),
        "sign": lambda: K.sign(A - 0.5), "pow": lambda: K.pow(A, 3), "prod": lambda: K.prod(A, axis=[0, 2]),
        "any_all": lambda: K.concatenate([K.cast(K.any(K.greater(A, 0.9), axis=1), "float32"), K.cast(K.all(K.greater(A, 0.1), axis=1), "float32")]),
        "dot_3d": lambda: K.dot(A, K.variable(rng.rand(4, 2).astype("float32"))),
        "dot_nd": lambda: K.dot(K.variable(rng.rand(2, 4).astype("float32")), K.variable(rng.rand(3, 4, 2).astype("float32"))),
        "random_normal": lambda: K.random_normal((3, 4), seed=5), "random_binomial": lambda: K.random_binomial((3, 4), p=0.3, seed=6),
        "truncated_normal": lambda: K.truncated_normal((2, 5), seed=7), "random_uniform": lambda: K.random_uniform((5,), seed=8),
        "dropout": lambda: K.dropout(A, 0.5, seed=9), "dropout_ns": lambda: K.dropout(A, 0.5, noise_shape=(2, 1, 4), seed=10),
        "temporal_padding": lambda: K.temporal_padding(A, (2, 1)), "spatial_3d_padding": lambda: K.spatial_3d_padding(vol),
        "squeeze": lambda: K.squeeze(K.expand_dims(M, 1), 1), "arange": lambda: K.arange(2, 11, 3),
        "eye": lambda: K.eye(3), "update_add": lambda: (lambda u: (K.function([], [], updates=[K.update_add(M, M)])([]), M)[1])(None),
    }


def backend_functions():
    """Each case's shape, dtype and first values; a case this Theano mode cannot run (the
    oracle's C-less mode has no convolutions, its C mode no scan) is left out."""
    from keras import backend as K

    results = {}
    for name, build in backend_cases().items():
        try:
            out = np.asarray(K.eval(build()))
        except Exception:
            if "--record" in sys.argv:
                continue
            raise
        results[name] = [list(out.shape), str(out.dtype),
                         np.asarray(out, dtype="float64").ravel()[:8].tolist()]
    return results


SECTIONS = {"dense": dense_models, "cnn": cnn_models, "rnn": rnn_models,
            "backend": backend_functions}


def main(argv):
    record = "--record" in argv
    names = [a for a in argv if not a.startswith("--")]
    for name in names:
        results = SECTIONS[name]()
        if record:  # "backend" is recorded in two oracle modes
            results = keras_setup.record(os.path.join(HERE, "expected", "keras_%s.json" % name),
                                         results, merge=name == "backend")
        print(json.dumps({name: results}))


if __name__ == "__main__":
    main(sys.argv[1:])
