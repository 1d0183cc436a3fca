"""More Keras 2.3.1 programs on the Theano backend: the layers, training options, callbacks and
backend calls that ``keras_models.py`` does not reach. Run as a script, it prints a JSON object
``{section: {case: [values...]}}`` for the sections named on the command line (``layers``,
``recurrent``, ``training``); ``--record`` writes ``expected/keras_more_<section>.json``.

``test_keras_more.py`` runs it with ``theano`` meaning jitgraph and compares with the values
recorded under the real Theano 1.0.5 (oracle command lines as in ``keras_models.py``):
``layers`` and ``training`` in Theano's C mode (its convolutions need the C code; Scan, whose
Cython part does not build on Python 3.11, runs its Python loop there, see below), ``recurrent``
with ``cxx=`` (Theano's C BatchedDot needs a BLAS library, which the oracle goes without).
``--keep-going`` reports a failing case as ``{"error": ...}`` instead of stopping;
``--cases=a,b`` runs (or records) only those cases of the sections named.
"""

import json
import os
import sys
import tempfile
import traceback

import keras_setup  # noqa: F401  (before Keras: the theano alias and the compatibility shims)
import numpy as np  # noqa: E402

import keras  # noqa: E402
from keras import backend as K  # noqa: E402
from keras import layers as L  # noqa: E402
from keras.models import Model, Sequential  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

GLOROT = "glorot_uniform"  # not `orthogonal`: its SVD signs differ between NumPy builds


def flat(values, n=6):
    """The first ``n`` values of an array (or list of arrays) as floats."""
    if isinstance(values, (list, tuple)):
        return sum((flat(v, n) for v in values), [])
    return np.asarray(values, dtype="float64").ravel()[:n].tolist()


def fit(model, x, y, epochs=2, batch_size=8, **kwargs):
    """Losses (and metrics) of each epoch, then the trained model's first outputs."""
    history = model.fit(x, y, epochs=epochs, batch_size=batch_size, verbose=0, shuffle=False,
                        **kwargs)
    logs = [float(v) for key in sorted(history.history) for v in history.history[key]]
    return logs + flat(model.predict(x[:2] if not isinstance(x, list) else [a[:2] for a in x]))


def rand(*shape):
    return np.random.rand(*shape).astype("float32")


def onehot(n, classes):
    return keras.utils.to_categorical(np.random.randint(0, classes, n), classes)


# ---- layers (convolutions: recorded in Theano's C mode) ----------------------------------------

def case_locally_connected():
    np.random.seed(11)
    x1, x2 = rand(16, 7, 3), rand(16, 6, 6, 2)
    m1 = Sequential([L.LocallyConnected1D(4, 3, strides=2, input_shape=(7, 3)),
                     L.Flatten(), L.Dense(1)])
    m1.compile("sgd", "mse")
    m2 = Sequential([L.LocallyConnected2D(3, (3, 3), input_shape=(6, 6, 2), activation="relu"),
                     L.Flatten(), L.Dense(2, activation="softmax")])
    m2.compile("adam", "categorical_crossentropy")
    return fit(m1, x1, rand(16, 1)) + fit(m2, x2, onehot(16, 2))


def case_conv3d():
    np.random.seed(12)
    model = Sequential([L.Conv3D(3, (2, 2, 2), input_shape=(6, 6, 6, 2), padding="same"),
                        L.MaxPooling3D((2, 2, 2)), L.UpSampling3D((1, 2, 1)),
                        L.AveragePooling3D((3, 2, 3)), L.Flatten(), L.Dense(1)])
    model.compile("rmsprop", "mse")
    return fit(model, rand(8, 6, 6, 6, 2), rand(8, 1))


def case_upsampling2d():
    np.random.seed(13)
    model = Sequential([L.Conv2D(2, (3, 3), input_shape=(5, 5, 1)), L.UpSampling2D((2, 3)),
                        L.SpatialDropout2D(0.3), L.Conv2D(1, (2, 2), strides=2),
                        L.GlobalMaxPooling2D(), L.Dense(1)])
    model.compile("sgd", "mse")
    return fit(model, rand(8, 5, 5, 1), rand(8, 1))


def case_noise_layers():
    np.random.seed(14)
    model = Sequential([L.Dense(6, input_dim=5), L.GaussianNoise(0.3), L.PReLU(),
                        L.GaussianDropout(0.2), L.Dense(6), L.ThresholdedReLU(0.1),
                        L.AlphaDropout(0.2), L.Dense(3), L.Softmax()])
    model.compile("sgd", "categorical_crossentropy")
    return fit(model, rand(16, 5), onehot(16, 3))


class Scale(L.Layer):
    """A custom layer: a regularized, constrained per-feature scale and a bias."""

    def build(self, input_shape):
        self.scale = self.add_weight("scale", (input_shape[-1],), initializer="ones",
                                     regularizer=keras.regularizers.l2(0.1),
                                     constraint=keras.constraints.NonNeg())
        self.bias = self.add_weight("bias", (input_shape[-1],), initializer="zeros",
                                    trainable=True)
        super().build(input_shape)

    def call(self, inputs):
        return inputs * self.scale + self.bias


def case_custom_layer():
    np.random.seed(15)
    model = Sequential([
        L.Dense(5, input_dim=4, kernel_regularizer=keras.regularizers.l1_l2(0.01, 0.02),
                bias_regularizer="l2", kernel_constraint=keras.constraints.MaxNorm(0.5)),
        Scale(), L.Lambda(lambda t: K.square(t) - K.mean(t, axis=-1, keepdims=True)),
        L.Dense(3, activity_regularizer=keras.regularizers.l1(0.05),
                kernel_constraint=keras.constraints.UnitNorm(axis=0)),
        L.Dense(2, kernel_constraint=keras.constraints.MinMaxNorm(0.2, 0.6))])
    model.compile("sgd", "mse")
    out = fit(model, rand(16, 4), rand(16, 2))
    return out + flat([w for w in model.get_weights()], 4)


def case_attention():
    np.random.seed(16)
    query, keys = L.Input((4, 6)), L.Input((5, 6))
    scores = L.Lambda(lambda qk: K.batch_dot(qk[0], qk[1], axes=[2, 2]))([query, keys])
    weights = L.Softmax(axis=-1)(scores)
    context = L.Lambda(lambda wk: K.batch_dot(wk[0], wk[1], axes=[2, 1]))([weights, keys])
    dotted = L.Dot(axes=(2, 2), normalize=True)([context, query])
    out = L.Dense(1, activation="sigmoid")(L.Flatten()(L.concatenate([context, dotted])))
    model = Model([query, keys], out)
    model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    y = np.random.randint(0, 2, (16, 1))
    return fit(model, [rand(16, 4, 6), rand(16, 5, 6)], y)


def case_channels_first():
    # (no biases before the batch normalization: their gradients are rounding noise, which Adam
    # scales up to whole steps)
    np.random.seed(17)
    model = Sequential([
        L.ZeroPadding3D(((1, 0), (0, 1), (1, 1)), input_shape=(2, 4, 4, 4),
                        data_format="channels_first"),
        L.Conv3DTranspose(2, (2, 2, 2), strides=(1, 2, 1), data_format="channels_first",
                          use_bias=False),
        L.Cropping3D(((0, 1), (1, 1), (0, 2)), data_format="channels_first"),
        L.Reshape((2 * 5, 8, 5)),
        L.DepthwiseConv2D((2, 2), depth_multiplier=2, data_format="channels_first",
                          use_bias=False),
        L.BatchNormalization(axis=1, momentum=0.5),
        L.Conv2D(3, (3, 3), dilation_rate=(2, 1), data_format="channels_first",
                 padding="same", kernel_initializer="he_normal"),
        L.MaxPooling2D((2, 2), padding="same", data_format="channels_first"),
        L.Conv2DTranspose(2, (3, 3), strides=2, output_padding=1,
                          data_format="channels_first"),
        L.GlobalAveragePooling2D(data_format="channels_first"), L.Dense(1)])
    model.compile("adam", "mse")
    x = rand(8, 2, 4, 4, 4)
    return fit(model, x, rand(8, 1))


def case_conv1d_more():
    np.random.seed(18)
    model = Sequential([
        L.SeparableConv1D(4, 3, input_shape=(9, 2), depth_multiplier=2, padding="same"),
        L.Cropping1D((1, 2)), L.ZeroPadding1D(2), L.Conv1D(3, 2, strides=2),
        L.AveragePooling1D(2), L.Activation("softmax"),
        L.GlobalAveragePooling1D(), L.Dense(2, activation="selu",
                                            kernel_initializer="lecun_normal")])
    model.compile("nadam", "logcosh")
    return fit(model, rand(8, 9, 2), rand(8, 2))


def case_losses():
    np.random.seed(19)
    x = rand(16, 5)
    probs = rand(16, 3) + 0.1
    probs /= probs.sum(1, keepdims=True)
    out = []
    for loss, act in (("kullback_leibler_divergence", "softmax"), ("poisson", "softplus"),
                      ("cosine_proximity", "linear"), ("squared_hinge", "tanh"),
                      ("mean_absolute_percentage_error", "exponential"),
                      ("binary_crossentropy", "hard_sigmoid")):
        scaling = keras.initializers.VarianceScaling(2.0, "fan_avg", "uniform", seed=1)
        model = Sequential([L.Dense(4, input_dim=5, activation="softsign",
                                    kernel_initializer=scaling),
                            L.Dense(3, activation=act)])
        model.compile("sgd", loss)
        out += fit(model, x, probs if act != "tanh" else probs * 2 - 0.7, epochs=1)[:3]
    return out


# ---- recurrent layers (scan: recorded with cxx=) -----------------------------------------------

def case_gru_reset_after():
    np.random.seed(21)
    model = Sequential([L.GRU(5, reset_after=True, recurrent_initializer=GLOROT,
                              input_shape=(6, 3), return_sequences=True),
                        L.GRU(4, reset_after=True, recurrent_initializer=GLOROT,
                              go_backwards=True, dropout=0.2, recurrent_dropout=0.2),
                        L.Dense(1)])
    model.compile("adam", "mse")
    return fit(model, rand(16, 6, 3), rand(16, 1))


def case_return_state():
    np.random.seed(22)
    inputs = L.Input((5, 3))
    seq, h, c = L.LSTM(4, return_sequences=True, return_state=True,
                       recurrent_initializer=GLOROT, unroll=False)(inputs)
    out, h2 = L.GRU(4, return_state=True, recurrent_initializer=GLOROT)(seq, initial_state=h)
    out = L.SimpleRNN(3, recurrent_initializer=GLOROT, unroll=True)(
        L.RepeatVector(2)(L.add([out, h2, c])))
    model = Model(inputs, L.Dense(2)(out))
    model.compile("rmsprop", "mse")
    return fit(model, rand(16, 5, 3), rand(16, 2))


def case_stateful():
    np.random.seed(23)
    model = Sequential([L.LSTM(4, stateful=True, batch_input_shape=(4, 3, 2),
                               recurrent_initializer=GLOROT), L.Dense(1)])
    model.compile("sgd", "mse")
    x, y = rand(8, 3, 2), rand(8, 1)
    out = []
    for _ in range(2):
        out.append(float(model.train_on_batch(x[:4], y[:4])))
        out.append(float(model.train_on_batch(x[4:], y[4:])))
        model.reset_states()
    first = model.predict(x[:4], batch_size=4)
    second = model.predict(x[:4], batch_size=4)  # carries the state of the first
    model.reset_states()
    third = model.predict(x[:4], batch_size=4)
    return out + flat([first, second, third], 4)


def case_masking():
    np.random.seed(24)
    x = rand(16, 5, 3)
    x[:6, 3:] = 0.0
    model = Sequential([L.Masking(0.0, input_shape=(5, 3)),
                        L.SimpleRNN(4, recurrent_initializer=GLOROT, return_sequences=True),
                        L.TimeDistributed(L.Dense(2)),
                        L.LSTM(3, recurrent_initializer=GLOROT), L.Dense(1)])
    model.compile("adagrad", "mse")
    return fit(model, x, rand(16, 1))


def case_embedding_time_distributed():
    np.random.seed(25)
    words = np.random.randint(0, 15, (16, 6))
    model = Sequential([L.Embedding(15, 4, input_length=6),
                        L.TimeDistributed(L.Dense(3, activation="relu")),
                        L.TimeDistributed(L.Dense(5, activation="softmax"))])
    model.compile("adam", "sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    return fit(model, words, np.random.randint(0, 5, (16, 6, 1)))


class MinimalCell(L.Layer):
    """A custom RNN cell (the Keras docs' example), with two states."""

    state_size = (3, 3)

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (input_shape[-1], 3), initializer="uniform")
        self.recurrent = self.add_weight("recurrent", (3, 3), initializer=GLOROT)
        self.built = True

    def call(self, inputs, states):
        h = K.dot(inputs, self.kernel) + K.dot(states[0], self.recurrent)
        return K.tanh(h), [K.tanh(h), states[1] * 0.5 + h]


def case_rnn_more():
    np.random.seed(27)
    inputs = L.Input((4, 3))
    cells = [L.LSTMCell(3, recurrent_initializer=GLOROT, implementation=2),
             L.GRUCell(3, recurrent_initializer=GLOROT, implementation=2), MinimalCell()]
    stacked = L.RNN(cells, return_sequences=True, unroll=True)(inputs)
    bi = L.Bidirectional(L.GRU(2, recurrent_initializer=GLOROT, return_sequences=True),
                         merge_mode="sum")(stacked)
    bi2 = L.Lambda(lambda t: t[:, -1], output_shape=lambda s: (s[0], s[2]))(bi)
    last = L.RNN(MinimalCell(), go_backwards=True)(inputs)
    model = Model(inputs, L.Dense(1)(L.concatenate([bi2, last])))
    model.compile("adam", "mse")
    return fit(model, rand(16, 4, 3), rand(16, 1))


def case_stateful_bidirectional():
    np.random.seed(28)
    model = Sequential([L.Bidirectional(L.GRU(3, stateful=True, recurrent_initializer=GLOROT,
                                              return_sequences=True), batch_input_shape=(2, 3, 2)),
                        L.TimeDistributed(L.Dense(1))])
    model.compile("adam", "mse")
    x = rand(2, 3, 2)
    out = [float(model.train_on_batch(x, rand(2, 3, 1))) for _ in range(2)]
    first, second = model.predict(x, batch_size=2), model.predict(x, batch_size=2)
    model.layers[0].reset_states()
    return out + flat([first, second, model.predict(x, batch_size=2)], 3)


def case_conv_lstm():
    np.random.seed(26)
    model = Sequential([L.ConvLSTM2D(2, (3, 3), padding="same", input_shape=(3, 5, 5, 1),
                                     recurrent_initializer=GLOROT, strides=2),
                        L.Flatten(), L.Dense(1)])
    model.compile("sgd", "mse")
    return fit(model, rand(8, 3, 5, 5, 1), rand(8, 1), epochs=1)


# ---- training options, callbacks, backend functions --------------------------------------------

def mlp(inputs=6, classes=3):
    return Sequential([L.Dense(8, activation="relu", input_dim=inputs),
                       L.Dense(classes, activation="softmax")])


def case_multi_io():
    np.random.seed(31)
    a, b = L.Input((4,), name="a"), L.Input((3,), name="b")
    hidden = L.Dense(6, activation="tanh")(L.concatenate([a, b]))
    cls = L.Dense(3, activation="softmax", name="cls")(hidden)
    reg = L.Dense(1, name="reg")(hidden)
    model = Model([a, b], [cls, reg])
    model.compile(keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
                  {"cls": "categorical_crossentropy", "reg": "mae"},
                  loss_weights={"cls": 1.0, "reg": 0.3},
                  metrics={"cls": ["accuracy", "top_k_categorical_accuracy"], "reg": ["mae"]})
    x = [rand(16, 4), rand(16, 3)]
    y = {"cls": onehot(16, 3), "reg": rand(16, 1)}
    out = fit(model, x, y)
    return out + flat(model.evaluate(x, y, batch_size=5, verbose=0))


def case_weights():
    np.random.seed(32)
    x, y = rand(24, 6), onehot(24, 3)
    model = mlp()
    model.compile(keras.optimizers.Adam(amsgrad=True, decay=0.01),
                  "categorical_crossentropy", metrics=["acc", "mae"])
    out = fit(model, x, y, sample_weight=np.linspace(0.1, 2.0, 24))
    model2 = mlp()
    model2.compile(keras.optimizers.RMSprop(clipnorm=0.5), "categorical_crossentropy",
                   weighted_metrics=["accuracy"])
    out += fit(model2, x, y, class_weight={0: 1.0, 1: 3.0, 2: 0.5})
    seq = Sequential([L.Dense(3, input_shape=(4, 2)), L.Dense(1)])
    seq.compile(keras.optimizers.Adagrad(clipvalue=0.01), "mse", sample_weight_mode="temporal")
    out += fit(seq, rand(8, 4, 2), rand(8, 4, 1), sample_weight=rand(8, 4))
    return out


def case_batches():
    np.random.seed(33)
    x, y = rand(12, 6), onehot(12, 3)
    model = mlp()
    model.compile(keras.optimizers.Adamax(decay=0.1), "categorical_crossentropy",
                  metrics=["accuracy", "top_k_categorical_accuracy"])
    out = []
    for i in range(3):
        out += flat(model.train_on_batch(x[4 * i:4 * i + 4], y[4 * i:4 * i + 4]))
        out += flat(model.test_on_batch(x[:4], y[:4]))
    out += flat(model.predict_on_batch(x[:3]), 9)
    out += flat(model.evaluate(x, y, batch_size=5, verbose=0))
    out += flat(model.predict(x, batch_size=5)[-1])
    return out


def case_callbacks():
    np.random.seed(34)
    x, y = rand(32, 6), onehot(32, 3)
    model = mlp()
    model.compile(keras.optimizers.SGD(0.5, decay=0.01), "categorical_crossentropy",
                  metrics=["accuracy"])
    callbacks = [keras.callbacks.LearningRateScheduler(lambda epoch: 0.5 / (1 + epoch)),
                 keras.callbacks.ReduceLROnPlateau("val_loss", factor=0.5, patience=0,
                                                   min_delta=10.0),
                 keras.callbacks.EarlyStopping("val_loss", patience=1, min_delta=10.0)]
    history = model.fit(x, y, epochs=6, batch_size=8, verbose=0, shuffle=False,
                        validation_split=0.25, callbacks=callbacks)
    logs = [float(v) for key in sorted(history.history) for v in history.history[key]]
    return [float(len(history.epoch)), float(K.get_value(model.optimizer.lr))] + logs


def case_optimizers():
    np.random.seed(35)
    x, y = rand(16, 6), onehot(16, 3)
    out = []
    for optimizer in (keras.optimizers.Nadam(clipnorm=1.0), keras.optimizers.Adadelta(decay=0.1),
                      keras.optimizers.SGD(0.1, momentum=0.5, clipvalue=0.05)):
        model = mlp()
        model.compile(optimizer, "categorical_crossentropy")
        out += fit(model, x, y)
    return out


def case_backend():
    np.random.seed(36)
    x = K.placeholder((None, 3))
    w = K.variable(rand(3, 2))
    acc = K.variable(np.zeros((3, 2), dtype="float32"))
    y = K.softmax(K.dot(x, w))
    target = K.constant(np.eye(2)[[0, 1, 1]])
    loss = -K.mean(K.sum(target * K.log(y), axis=-1)) + 0.1 * K.sum(K.abs(w))
    grads = K.gradients(loss, [w])
    step = K.function([x, K.learning_phase()], [loss, grads[0]],
                      updates=[K.update_add(acc, grads[0]), K.update_sub(w, 0.1 * grads[0])])
    data = rand(3, 3)
    out = []
    for phase in (1, 0):
        out += flat(step([data, phase]), 6)
    out += flat(K.get_value(acc)) + flat(K.get_value(w))
    hess = K.gradients(K.sum(K.square(grads[0])), [w])[0]
    out += flat(K.function([x], [hess])([data])[0])
    drop = K.function([x, K.learning_phase()], [K.in_train_phase(x * 2, x - 1)])
    out += flat(drop([data, 1])[0], 3) + flat(drop([data, 0])[0], 3)
    return out


def case_learning_phase():
    np.random.seed(37)
    model = Sequential([L.Dense(4, input_dim=3), L.BatchNormalization(), L.Dropout(0.5),
                        L.Dense(2)])
    model.compile("sgd", "mse")
    x = rand(8, 3)
    model.fit(x, rand(8, 2), epochs=1, batch_size=4, verbose=0, shuffle=False)
    f = K.function([model.input, K.learning_phase()], [model.output])
    return flat(f([x, 0])[0]) + flat(f([x, 1])[0]) + flat(model.predict(x))


def case_set_learning_phase():
    """A model built after ``K.set_learning_phase(1)`` predicts in training mode (dropout on,
    batch statistics); the phase is put back afterwards for the cases that follow."""
    from keras.backend import theano_backend

    np.random.seed(38)
    saved = theano_backend._LEARNING_PHASE
    K.set_learning_phase(1)
    try:
        model = Sequential([L.Dense(4, input_dim=3), L.BatchNormalization(),
                            L.Dropout(0.5, seed=3), L.Dense(2)])
        model.compile("sgd", "mse")
        x = rand(8, 3)
        out = flat(model.predict(x))
        model.fit(x, rand(8, 2), epochs=1, batch_size=4, verbose=0, shuffle=False)
        return out + flat(model.predict(x)) + [float(K.learning_phase())]
    finally:
        theano_backend._LEARNING_PHASE = saved


class Batches(keras.utils.Sequence):
    """Three fixed batches for fit_generator/predict_generator/evaluate_generator."""

    def __len__(self):
        return 3

    def __getitem__(self, i):
        rng = np.random.RandomState(i)
        return (rng.rand(4, 6).astype("float32"),
                keras.utils.to_categorical(rng.randint(0, 3, 4), 3))


def case_model_api():
    np.random.seed(39)
    a, b = L.Input((5,)), L.Input((5,))
    shared = L.Dense(4, activation="tanh")
    distance = L.Lambda(lambda t: K.abs(t[0] - t[1]))([shared(a), shared(b)])
    siamese = Model([a, b], L.Dense(1, activation="sigmoid")(distance))
    siamese.add_loss(0.01 * K.sum(K.square(shared.kernel)))
    siamese.compile("adam", "binary_crossentropy", metrics=["binary_accuracy"])
    out = fit(siamese, [rand(16, 5), rand(16, 5)], np.random.randint(0, 2, (16, 1)),
              validation_data=([rand(4, 5), rand(4, 5)], np.random.randint(0, 2, (4, 1))))
    model = mlp()
    model.compile("rmsprop", "categorical_crossentropy", metrics=["accuracy"])
    history = model.fit_generator(Batches(), epochs=2, verbose=0, shuffle=False, workers=0)
    out += flat(history.history["loss"]) + flat(model.predict_generator(Batches(), workers=0))
    out += flat(model.evaluate_generator(Batches(), workers=0))
    model = mlp()
    model.compile(keras.optimizers.SGD(0.1), "categorical_crossentropy",
                  target_tensors=[K.variable(onehot(8, 3))])
    x = rand(8, 6)
    out += [float(model.train_on_batch(x, None))]
    K.set_value(model.optimizer.lr, 0.5)
    out += [float(model.train_on_batch(x, None)) for _ in range(2)]
    # K.tile with a repeat vector known at run time
    tiled = K.tile(K.variable(rand(1, 2, 3)), K.shape(K.variable(rand(2, 2)))[:1] + 1)
    return out + flat(K.eval(tiled), 9)


# ---- saving and loading ------------------------------------------------------------------------

def case_save_load():
    """A trained model round-trips (HDF5 where h5py is there, else JSON + weight arrays)."""
    np.random.seed(41)
    x, y = rand(16, 6), onehot(16, 3)
    model = Sequential([L.Dense(5, activation="relu", input_dim=6, name="h"),
                        L.BatchNormalization(), L.Dense(3, activation="softmax")])
    model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
    out = fit(model, x, y)
    before = model.predict(x[:3])
    restored = keras.models.model_from_json(model.to_json())
    restored.set_weights(model.get_weights())
    try:
        import h5py
    except ImportError:
        h5py = None
    if h5py is not None:  # (Keras 2.3.1 cannot read back with h5py 3: it decodes str attrs)
        with tempfile.TemporaryDirectory() as tmp:
            model.save(os.path.join(tmp, "m.h5"))
            with h5py.File(os.path.join(tmp, "m.h5"), "r") as saved:
                arrays = []
                saved["model_weights"]["h"].visititems(
                    lambda name, item: arrays.append(item[()]) if hasattr(item, "shape") else None)
                assert any(np.array_equal(a, model.get_weights()[0]) for a in arrays), arrays
                assert len(saved["optimizer_weights"]["training"]["Adam"]) > 0
    clone = keras.models.clone_model(model)
    clone.set_weights(model.get_weights())
    assert np.allclose(restored.predict(x[:3]), before, atol=1e-6)
    assert np.allclose(clone.predict(x[:3]), before, atol=1e-6)
    return out + flat(before, 9)


SECTIONS = {
    "layers": [case_conv3d, case_upsampling2d, case_noise_layers, case_custom_layer,
               case_channels_first, case_conv1d_more, case_losses, case_conv_lstm],
    # with the scan cases: Theano's C BatchedDot needs a BLAS, which the oracle goes without
    "recurrent": [case_locally_connected, case_attention, case_gru_reset_after, case_return_state,
                  case_stateful, case_masking, case_embedding_time_distributed, case_rnn_more,
                  case_stateful_bidirectional],
    "training": [case_multi_io, case_weights, case_batches, case_callbacks, case_optimizers,
                 case_backend, case_learning_phase, case_model_api, case_save_load,
                 case_set_learning_phase],
}


def run_section(name, keep_going, record, only=None):
    results = {}
    for case in SECTIONS[name]:
        key = case.__name__[len("case_"):]
        if only is not None and key not in only:
            continue
        try:
            results[key] = case()
        except Exception as error:  # noqa: BLE001 - reported per case
            if record:  # a case this Theano mode cannot run (conv without C, C scan)
                print("skipped %s: %r" % (key, error), file=sys.stderr)
                continue
            if not keep_going:
                raise
            traceback.print_exc()
            results[key] = {"error": repr(error)[:300]}
    return results


def main(argv):
    record, keep_going = "--record" in argv, "--keep-going" in argv
    only = [a.split("=", 1)[1].split(",") for a in argv if a.startswith("--cases=")]
    for name in [a for a in argv if not a.startswith("--")]:
        results = run_section(name, keep_going, record, only[0] if only else None)
        if record:  # a section may be recorded in two oracle modes
            results = keras_setup.record(
                os.path.join(HERE, "expected", "keras_more_%s.json" % name), results, merge=True)
        print(json.dumps({name: results}))


if __name__ == "__main__":
    main(sys.argv[1:])
