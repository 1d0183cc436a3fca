"""Keras 1.2.2 programs on the Theano backend, written with the Keras 1 API most Theano users ran
in 2016-2017 (``Dense(output_dim=..., init=...)``, ``nb_epoch``, ``Convolution2D(nb_filter,
nb_row, nb_col, border_mode=...)``, ``dim_ordering='th'``, ``Merge``, ``consume_less``,
``Model(input=..., output=...)``, ``merge(mode=...)``). Run as a script it prints a JSON object
``{section: {case: [values...]}}`` for the sections named on the command line (``dense``,
``dense64``, ``cnn``, ``rnn``, ``functional``, ``backend``).

Keras 1.2.2 must be importable (``pip install --no-deps --target DIR keras==1.2.2`` and
``PYTHONPATH=DIR``); ``test_keras1.py`` does that and runs this script with ``theano`` meaning
jitgraph. The expected values (``expected/keras1_<section>.json``) were recorded under the real
Theano 1.0.5 with ``--record``: ``rnn`` with the oracle's Python scan (``cxx=``: Theano's C scan
does not build on Python 3.11), ``functional`` too (in C mode one of its ops did not load:
``undefined symbol: dgemm_``, the oracle links no BLAS library), the other sections with its C code
(convolutions have no Python implementation), and ``backend`` in both modes, merged::

    PYTHONPATH=DIR ../shared/tools/theano-oracle tests/programs/keras1_programs.py \
        --record dense dense64 cnn backend
    ORACLE_PY=1 PYTHONPATH=DIR ../shared/tools/theano-oracle \
        tests/programs/keras1_programs.py --record functional rnn backend

Weights are drawn by NumPy's global generator in Keras 1, so ``np.random.seed`` before each
model fixes them. Recurrent layers use ``inner_init='glorot_uniform'``: the default
``orthogonal`` goes through ``numpy.linalg.svd``, whose signs differ between LAPACK builds.
"""

import atexit
import inspect
import json
import os
import shutil
import sys
import tempfile

# A private Keras home while Keras is imported: Keras 1 reads (and writes) ~/.keras/keras.json
# then; this one names the Theano backend and Theano's image layout, as a Keras 1 Theano user's
# did. jitgraph is imported first: its compiledir (under ~) is fixed at import. (The oracle
# gives Theano its compiledir in THEANO_FLAGS.)
if os.environ.get("JITGRAPH_AS_THEANO") == "1":
    import jitgraph  # noqa: F401
if not hasattr(inspect, "getargspec"):  # gone in Python 3.11; Keras 1 reads its ``.args``
    inspect.getargspec = inspect.getfullargspec
_HOME = tempfile.mkdtemp(prefix="keras1-home-")
atexit.register(shutil.rmtree, _HOME, True)
os.makedirs(os.path.join(_HOME, ".keras"))
with open(os.path.join(_HOME, ".keras", "keras.json"), "w") as _config:
    json.dump({"floatx": "float32", "epsilon": 1e-7, "backend": "theano",
               "image_dim_ordering": "th"}, _config)
_REAL_HOME, os.environ["HOME"] = os.environ.get("HOME"), _HOME
import keras_setup  # noqa: E402  (the theano alias and Python 3.11/NumPy 2 shims; imports Keras)
import theano.ifelse  # noqa: E402,F401  Keras 1.2.2 calls theano.ifelse.ifelse without importing it
if _REAL_HOME is not None:
    os.environ["HOME"] = _REAL_HOME
import numpy as np  # noqa: E402

import keras  # noqa: E402
from keras import backend as K  # noqa: E402
from keras import optimizers as O  # noqa: E402
from keras.layers import (Activation, AtrousConvolution2D, AveragePooling1D,  # noqa: E402
                          AveragePooling2D, BatchNormalization, Bidirectional, Convolution1D,
                          Convolution2D, Convolution3D, Cropping2D, Deconvolution2D, Dense,
                          Dropout, ELU, Embedding, Flatten, GlobalAveragePooling2D,
                          GlobalMaxPooling1D, GRU, Highway, Input, Lambda, LeakyReLU,
                          LocallyConnected2D, LSTM, Masking, MaxoutDense, MaxPooling1D,
                          MaxPooling2D, MaxPooling3D, Merge, merge, ParametricSoftplus, PReLU,
                          RepeatVector, Reshape, SimpleRNN, SReLU, TimeDistributed,
                          UpSampling2D, ZeroPadding2D)
from keras.models import Model, Sequential  # noqa: E402
from keras.regularizers import l2  # noqa: E402
from keras.utils.np_utils import to_categorical  # noqa: E402

assert keras.__version__ == "1.2.2", keras.__version__
HERE = os.path.dirname(os.path.abspath(__file__))


def floats(values, n=6) -> list:
    """The first ``n`` numbers of ``values`` (an array, list of arrays or scalars) as floats."""
    if isinstance(values, list):
        values = np.concatenate([np.ravel(np.asarray(v, dtype="float64")) for v in values])
    return np.asarray(values, dtype="float64").ravel()[:n].tolist()


def fit(model, x, y, nb_epoch=2, batch_size=16, validation_split=0.0, **kwargs) -> list:
    """Training (and validation) losses per epoch, then the first predictions."""
    history = model.fit(x, y, nb_epoch=nb_epoch, batch_size=batch_size, verbose=0,
                        shuffle=False, validation_split=validation_split, **kwargs)
    losses = history.history["loss"] + history.history.get("val_loss", [])
    return [float(v) for v in losses] + floats(model.predict(x[:2], batch_size=2))


# -- dense -------------------------------------------------------------------------------------

OPTIMIZERS = {
    "sgd-nesterov": lambda: O.SGD(lr=0.1, momentum=0.9, decay=1e-3, nesterov=True),
    "sgd-momentum": lambda: O.SGD(lr=0.05, momentum=0.5, clipnorm=1.0),
    "rmsprop": lambda: O.RMSprop(lr=0.01),
    "adagrad": lambda: O.Adagrad(lr=0.05, clipvalue=0.5),
    "adadelta": lambda: O.Adadelta(),
    "adam": lambda: O.Adam(lr=0.01),
    "adamax": lambda: O.Adamax(),
    "nadam": lambda: O.Nadam(),
}


MERGE_MODES = ("concat", "sum", "mul", "ave", "max")


def dense_models(optimizers=tuple(OPTIMIZERS), merge_modes=MERGE_MODES) -> dict:
    np.random.seed(1)
    x = np.random.rand(64, 12).astype(K.floatx())
    y = (x.sum(1, keepdims=True) > 6).astype(K.floatx())
    results = {}
    for name in optimizers:
        np.random.seed(10)
        model = Sequential()
        model.add(Dense(output_dim=16, input_dim=12, init="uniform"))
        model.add(Activation("relu"))
        model.add(Dropout(0.2))
        model.add(Dense(8, activation="tanh", W_regularizer=l2(0.01)))
        model.add(Dense(1, activation="sigmoid"))
        model.compile(loss="binary_crossentropy", optimizer=OPTIMIZERS[name](),
                      metrics=["accuracy"])
        results["mlp-" + name] = fit(model, x, y, validation_split=0.25)

    classes = to_categorical(np.random.randint(0, 3, 64), 3)
    for mode in (0, 2):
        np.random.seed(11)
        model = Sequential([Dense(10, input_dim=12, init="he_normal"), LeakyReLU(0.1),
                            BatchNormalization(mode=mode), Dense(3, activation="softmax")])
        model.compile("sgd", "categorical_crossentropy")
        results["batchnorm-mode%d" % mode] = fit(model, x, classes)

    np.random.seed(12)
    model = Sequential([MaxoutDense(6, nb_feature=3, input_dim=12), Highway(activation="relu"),
                        PReLU(), Dense(4), ELU(0.5), Dense(4), SReLU(), Dense(4),
                        ParametricSoftplus(), Dense(1)])
    model.compile(O.RMSprop(lr=0.005), "mse")
    losses = [float(model.train_on_batch(x[i:i + 16], y[i:i + 16])) for i in range(0, 64, 16)]
    results["advanced-activations"] = (losses + [float(model.evaluate(x, y, verbose=0))]
                                       + floats(model.layers[1].get_weights()))

    np.random.seed(13)
    left, right = Sequential(), Sequential()
    left.add(Dense(6, input_dim=12, activation="relu"))
    right.add(Dense(6, input_dim=12, activation="sigmoid"))
    for mode in merge_modes:
        model = Sequential()
        model.add(Merge([left, right], mode=mode))
        model.add(Dense(3, activation="softmax"))
        model.compile("adam", "categorical_crossentropy")
        results["sequential-merge-" + mode] = fit(model, [x, x * 0.5], classes, nb_epoch=1)
    return results


def dense64_models() -> dict:
    """The dense models with ``floatx`` float64 (compared with a tight tolerance). Keras 1
    sets Theano's ``floatX`` from its own at import; here both are set, then put back."""
    import theano

    K.set_floatx("float64")
    theano.config.floatX = "float64"
    try:
        return dense_models(("sgd-nesterov", "adam", "nadam"), ("concat",))
    finally:
        K.set_floatx("float32")
        theano.config.floatX = "float32"


# -- cnn ---------------------------------------------------------------------------------------

def cnn_models() -> dict:
    np.random.seed(2)
    results = {}
    x = np.random.rand(32, 1, 10, 10).astype("float32")
    y = to_categorical(np.random.randint(0, 3, 32), 3)

    np.random.seed(20)
    model = Sequential()
    model.add(Convolution2D(4, 3, 3, border_mode="same", input_shape=(1, 10, 10),
                            dim_ordering="th", activation="relu"))
    model.add(BatchNormalization(mode=0, axis=1))
    model.add(MaxPooling2D(pool_size=(2, 2), dim_ordering="th"))
    model.add(Convolution2D(6, 2, 2, subsample=(2, 2), dim_ordering="th"))
    # border_mode="same" would not train: Theano 1.0.5's AveragePoolGrad refuses padding
    model.add(AveragePooling2D((2, 2), border_mode="valid", dim_ordering="th"))
    model.add(Flatten())
    model.add(Dropout(0.3))
    model.add(Dense(3, activation="softmax"))
    model.compile(O.SGD(lr=0.05, momentum=0.9), "categorical_crossentropy")
    results["lenet-th"] = fit(model, x, y)

    np.random.seed(21)
    xt = x.transpose(0, 2, 3, 1)
    model = Sequential([
        ZeroPadding2D((1, 1), input_shape=(10, 10, 1), dim_ordering="tf"),
        Convolution2D(3, 3, 3, dim_ordering="tf", W_regularizer=l2(0.01)),
        MaxPooling2D((3, 3), strides=(2, 2), border_mode="same", dim_ordering="tf"),
        UpSampling2D((2, 2), dim_ordering="tf"),
        Cropping2D(((1, 1), (2, 0)), dim_ordering="tf"),
        GlobalAveragePooling2D(dim_ordering="tf"), Dense(3, activation="softmax")])
    model.compile("adadelta", "categorical_crossentropy")
    results["conv-tf-ordering"] = fit(model, xt, y)

    np.random.seed(22)
    model = Sequential([
        AtrousConvolution2D(3, 3, 3, atrous_rate=(2, 2), input_shape=(1, 10, 10),
                            dim_ordering="th", border_mode="same"),
        Deconvolution2D(2, 3, 3, output_shape=(None, 2, 21, 21), subsample=(2, 2),
                        dim_ordering="th"),
        LocallyConnected2D(2, 3, 3, subsample=(3, 3), dim_ordering="th"),
        Flatten(), Dense(1)])
    model.compile("rmsprop", "mse")
    results["atrous-deconv-local"] = fit(model, x, y[:, :1])

    np.random.seed(23)
    x1 = np.random.rand(24, 12, 3).astype("float32")
    y1 = to_categorical(np.random.randint(0, 2, 24), 2)
    model = Sequential([
        Convolution1D(4, 3, border_mode="same", input_shape=(12, 3), activation="tanh"),
        MaxPooling1D(2), Convolution1D(5, 2, subsample_length=2), AveragePooling1D(2),
        Flatten(), Dense(2, activation="softmax")])
    model.compile("adagrad", "categorical_crossentropy")
    results["conv1d"] = fit(model, x1, y1)

    np.random.seed(24)
    vol = np.random.rand(8, 2, 5, 6, 6).astype("float32")
    model = Sequential([
        Convolution3D(3, 2, 3, 3, input_shape=(2, 5, 6, 6), dim_ordering="th",
                      activation="relu"),
        MaxPooling3D((2, 2, 2), dim_ordering="th"), Flatten(), Dense(1)])
    model.compile("sgd", "mse")
    results["conv3d"] = fit(model, vol, np.random.rand(8, 1).astype("float32"), batch_size=4)
    return results


# -- rnn ---------------------------------------------------------------------------------------

def rnn_models() -> dict:
    np.random.seed(3)
    results = {}
    words = np.random.randint(1, 20, size=(32, 6))
    words[:8, 4:] = 0  # padding, masked by the embedding
    labels = np.random.randint(0, 2, size=(32, 1))
    for cell in (LSTM, GRU, SimpleRNN):
        for consume_less in ("cpu", "mem", "gpu"):
            np.random.seed(30)
            model = Sequential()
            model.add(Embedding(20, 5, input_length=6, mask_zero=True))
            model.add(cell(4, inner_init="glorot_uniform", consume_less=consume_less,
                           dropout_W=0.2, dropout_U=0.1))
            model.add(Dense(1, activation="sigmoid"))
            model.compile("rmsprop", "binary_crossentropy")
            results["%s-%s" % (cell.__name__, consume_less)] = fit(model, words, labels,
                                                                   nb_epoch=1)

    np.random.seed(31)
    seq = np.random.rand(16, 5, 3).astype("float32")
    model = Sequential([
        Masking(0.0, input_shape=(5, 3)),
        Bidirectional(GRU(3, inner_init="glorot_uniform", return_sequences=True),
                      merge_mode="concat"),
        TimeDistributed(Dense(2, activation="tanh")),
        LSTM(3, inner_init="glorot_uniform", go_backwards=True, unroll=True),
        RepeatVector(2), SimpleRNN(2, inner_init="glorot_uniform", return_sequences=True),
        Flatten(), Dense(1)])
    model.compile("adam", "mse")
    results["stacked-bidirectional"] = fit(model, seq, np.random.rand(16, 1), nb_epoch=1)

    np.random.seed(32)
    model = Sequential([
        LSTM(4, inner_init="glorot_uniform", batch_input_shape=(4, 5, 3), stateful=True,
             return_sequences=True),
        TimeDistributed(Dense(1))])
    model.compile("sgd", "mse", sample_weight_mode="temporal")
    targets = np.random.rand(16, 5, 1)
    weights = np.random.rand(16, 5)
    losses = [float(model.train_on_batch(seq[i:i + 4], targets[i:i + 4],
                                         sample_weight=weights[i:i + 4]))
              for i in range(0, 16, 4)]
    model.reset_states()
    results["stateful-temporal-weights"] = losses + floats(model.predict(seq[:4], batch_size=4))
    return results


# -- functional --------------------------------------------------------------------------------

def functional_models() -> dict:
    np.random.seed(4)
    results = {}
    a = np.random.rand(32, 8).astype("float32")
    b = np.random.rand(32, 8).astype("float32")
    y = np.random.rand(32, 1).astype("float32")

    for mode in ("concat", "sum", "mul", "ave", "max", "dot", "cos"):
        np.random.seed(40)
        in_a, in_b = Input(shape=(8,)), Input(shape=(8,))
        shared = Dense(5, activation="tanh")
        left, right = shared(in_a), shared(in_b)
        extra = {"dot_axes": 1} if mode in ("dot", "cos") else {}
        joined = merge([left, right], mode=mode, **extra)
        out = Dense(1)(joined)
        model = Model(input=[in_a, in_b], output=out)
        model.compile(O.SGD(lr=0.05), "mse")
        results["merge-" + mode] = fit(model, [a, b], y, nb_epoch=1)

    np.random.seed(41)
    inp = Input(shape=(8,), name="features")
    hidden = Dense(6, activation="relu")(inp)
    hidden = Lambda(lambda t: t * 2 - 1, output_shape=(6,))(hidden)
    main = Dense(1, activation="sigmoid", name="main")(hidden)
    aux = Dense(3, activation="softmax", name="aux")(merge([hidden, inp], mode="concat"))
    model = Model(input=inp, output=[main, aux])
    model.compile("adam", {"main": "binary_crossentropy", "aux": "categorical_crossentropy"},
                  loss_weights={"main": 1.0, "aux": 0.3}, metrics=["accuracy"])
    classes = to_categorical(np.random.randint(0, 3, 32), 3)
    history = model.fit({"features": a}, {"main": (y > 0.5).astype("float32"), "aux": classes},
                        nb_epoch=2, batch_size=8, verbose=0, validation_split=0.25,
                        shuffle=True)
    scores = model.evaluate(a, [(y > 0.5).astype("float32"), classes], verbose=0)
    results["two-outputs"] = ([float(v) for k in sorted(history.history)
                               for v in history.history[k]]
                              + [float(s) for s in scores] + floats(model.predict(a[:2])))

    np.random.seed(42)
    seq_in = Input(shape=(4, 8))
    encoded = TimeDistributed(Dense(3))(seq_in)
    pooled = GlobalMaxPooling1D()(encoded)
    reshaped = Reshape((3, 1))(pooled)
    out = Flatten()(TimeDistributed(Dense(2))(reshaped))
    model = Model(input=seq_in, output=out)
    model.compile(O.Adamax(), "mae")
    results["time-distributed"] = fit(model, np.random.rand(16, 4, 8), np.random.rand(16, 6))

    np.random.seed(43)
    inner = Sequential([Dense(4, input_dim=8, activation="relu"), Dense(2)])
    outer_in = Input(shape=(8,))
    model = Model(input=outer_in, output=Dense(1)(inner(outer_in)))
    model.compile(O.Nadam(lr=0.01), "mse")
    results["nested-model"] = fit(model, a, y, class_weight=None,
                                  sample_weight=np.linspace(0.5, 1.5, 32))
    return results


# -- backend -----------------------------------------------------------------------------------

def backend_cases() -> dict:
    """Keras 1 backend functions on fixed inputs, by name (each a thunk building the graph)."""
    rng = np.random.RandomState(0)
    f32 = lambda *shape: rng.rand(*shape).astype("float32")  # noqa: E731
    A, M, V = K.variable(f32(2, 3, 4)), K.variable(f32(3, 4)), K.variable(f32(4))
    img = K.variable(f32(2, 3, 5, 6))  # 'th' ordering
    vol = K.variable(f32(1, 2, 4, 4, 4))

    def function_with_updates():
        x = K.placeholder(ndim=2)
        acc = K.variable(np.zeros((3, 4), dtype="float32"))
        step = K.function([x, K.learning_phase()], [K.in_train_phase(x * 2, x) + acc],
                          updates=[(acc, acc + x)])
        first = step([f32(3, 4), 1])[0]
        return np.concatenate([first.ravel(), step([np.ones((3, 4)), 0])[0].ravel()])

    def gradients():
        x = K.placeholder(shape=(None, 4))
        loss = K.sum(K.softsign(K.dot(x, K.transpose(M))) ** 2)
        grads = K.gradients(loss, [M, x])
        return np.concatenate([g.ravel() for g in K.function([x], grads)([f32(2, 4)])])

    return {
        "function_updates": function_with_updates, "gradients": gradients,
        "batch_dot": lambda: K.batch_dot(A, K.permute_dimensions(A, (0, 2, 1)), axes=[2, 1]),
        "batch_dot_2d": lambda: K.batch_dot(K.variable(f32(2, 3)), K.variable(f32(2, 3)), axes=1),
        "l2_normalize": lambda: K.l2_normalize(A, axis=-1), "std": lambda: K.std(A, axis=1),
        "softsign": lambda: K.softsign(A - 0.5), "elu": lambda: K.elu(A - 0.5, 0.7),
        "hard_sigmoid": lambda: K.hard_sigmoid(A * 6 - 3),
        "relu": lambda: K.relu(A - 0.5, alpha=0.1, max_value=0.3),
        "one_hot": lambda: K.one_hot(K.variable(np.array([[0, 2], [1, 3]]), dtype="int32"), 4),
        "gather": lambda: K.gather(M, K.variable(np.array([2, 0, 2]), dtype="int32")),
        "repeat_elements": lambda: K.repeat_elements(A, 2, axis=1),
        "repeat": lambda: K.repeat(M, 2), "tile": lambda: K.tile(M, (2, 1)),
        "resize_images": lambda: K.resize_images(img, 2, 3, "th"),
        "resize_volumes": lambda: K.resize_volumes(vol, 1, 2, 1, "th"),
        "spatial_2d_padding": lambda: K.spatial_2d_padding(img, (1, 2), "th"),
        "asymmetric_padding": lambda: K.asymmetric_spatial_2d_padding(img, 1, 0, 2, 1, "th"),
        "temporal_padding": lambda: K.asymmetric_temporal_padding(A, 2, 1),
        "pool2d_max_same": lambda: K.pool2d(img, (3, 3), (2, 2), "same", "th", "max"),
        "pool2d_avg_same": lambda: K.pool2d(img, (3, 2), (2, 2), "same", "th", "avg"),
        "pool2d_avg_valid": lambda: K.pool2d(img, (2, 3), (1, 2), "valid", "th", "avg"),
        "pool3d_avg": lambda: K.pool3d(vol, (2, 2, 2), (2, 2, 2), "valid", "th", "avg"),
        "pool3d_max_same": lambda: K.pool3d(vol, (3, 3, 3), (2, 2, 2), "same", "th", "max"),
        "conv2d_filter_shape": lambda: K.conv2d(img, K.variable(f32(4, 3, 2, 2)),
                                                border_mode="same", dim_ordering="th",
                                                image_shape=(2, 3, 5, 6),
                                                filter_shape=(4, 3, 2, 2)),
        "conv2d_strided": lambda: K.conv2d(img, K.variable(f32(2, 3, 3, 3)), strides=(2, 1),
                                           dim_ordering="th"),
        "conv3d": lambda: K.conv3d(vol, K.variable(f32(3, 2, 2, 2, 2)), border_mode="same",
                                   dim_ordering="th"),
        "deconv2d": lambda: K.deconv2d(img, K.variable(f32(4, 3, 3, 3)), (2, 4, 11, 13),
                                       strides=(2, 2), dim_ordering="th",
                                       filter_shape=(4, 3, 3, 3)),
        "print_tensor": lambda: K.print_tensor(A * 2, "A * 2 = ") + 1,
        "rnn": lambda: K.rnn(lambda x, s: (x + s[0], [x + s[0]]), A, [K.zeros((2, 4))],
                             go_backwards=True)[1],
        "rnn_mask": lambda: K.rnn(lambda x, s: (x * 2 + s[0], [x * 2 + s[0]]), A,
                                  [K.zeros((2, 4))],
                                  mask=K.variable(np.array([[1, 1, 0], [1, 0, 0]],
                                                           dtype="float32")))[1],
        "rnn_unroll": lambda: K.rnn(lambda x, s: (K.tanh(x + s[0]), [K.tanh(x + s[0])]), A,
                                    [K.zeros((2, 4))], unroll=True, input_length=3)[1],
        "ctc": lambda: K.ctc_batch_cost(K.variable(np.array([[1, 2], [2, 2]]), dtype="int32"),
                                        K.softmax(K.variable(f32(2, 5, 4).reshape(10, 4))
                                                  ).reshape((2, 5, 4)),
                                        K.variable(np.array([[5], [4]]), dtype="int32"),
                                        K.variable(np.array([[2], [2]]), dtype="int32")),
        "map_fn": lambda: K.map_fn(lambda r: r * 2 + 1, M),
        "foldl": lambda: K.foldl(lambda acc, x: acc + x, M, initializer=K.zeros((4,))),
        "in_top_k": lambda: K.in_top_k(K.variable(f32(3, 5)),
                                       K.variable(np.array([1, 2, 3]), dtype="int32"), 2),
        "dropout": lambda: K.dropout(A, 0.5, seed=9),
        "random_binomial": lambda: K.random_binomial((3, 4), p=0.3, seed=6),
        "random_normal": lambda: K.random_normal((3, 4), seed=5),
        "random_uniform": lambda: K.random_uniform((5,), seed=8),
        "batchnorm_train": lambda: K.normalize_batch_in_training(A, K.ones((4,)),
                                                                 K.zeros((4,)), [0, 1])[0],
        "categorical_crossentropy": lambda: K.categorical_crossentropy(
            K.softmax(K.variable(f32(2, 3))), K.variable(np.eye(3)[[0, 2]].astype("float32"))),
        "sparse_categorical": lambda: K.sparse_categorical_crossentropy(
            K.softmax(K.variable(f32(2, 3))), K.variable(np.array([1, 2]), dtype="int32")),
    }


def backend_functions() -> dict:
    """Each case's shape, dtype and first values; under ``--record`` a case this Theano mode
    cannot run (the oracle's C-less mode has no convolutions, its C mode no scan) is left out."""
    results = {}
    for name, build in backend_cases().items():
        try:
            out = build()
            out = np.asarray(out if isinstance(out, np.ndarray) else K.eval(out))
        except Exception:
            if "--record" in sys.argv:
                continue
            raise
        results[name] = [list(out.shape), str(out.dtype), floats(out, 8)]
    return results


SECTIONS = {"dense": dense_models, "dense64": dense64_models, "cnn": cnn_models,
            "rnn": rnn_models, "functional": functional_models, "backend": backend_functions}


def main(argv: list) -> None:
    record = "--record" in argv
    for name in [a for a in argv if not a.startswith("--")]:
        results = SECTIONS[name]()
        if record:  # "backend" is recorded in two oracle modes
            results = keras_setup.record(os.path.join(HERE, "expected", "keras1_%s.json" % name),
                                         results, merge=name == "backend")
        print(json.dumps({name: results}))


if __name__ == "__main__":
    main(sys.argv[1:])
