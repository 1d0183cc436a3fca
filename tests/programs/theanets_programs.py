"""theanets 0.7 (networks trained by downhill): feed-forward regressors, classifiers and
autoencoders, and every recurrent layer form of the release, each trained for a few updates
with ``itertrain`` as its documentation shows. Each case: the training losses, then
predictions. See :mod:`library_harness` for running and recording."""

from library_harness import main, setup

setup()

import numpy as np  # noqa: E402

import theanets  # noqa: E402

RNG = np.random.RandomState(3)
X = RNG.randn(32, 4)
Y = X.dot(RNG.randn(4, 2))
LABELS = RNG.randint(0, 3, 32).astype("int32")
SEQ = RNG.randn(6, 8, 3)  # (batch, time, dim)
SEQ_Y = np.cumsum(SEQ, axis=1)[:, :, :2]


def trained(net, data, algo="rmsprop", updates=4, batch_size=8, **options) -> list:
    return [float(train["loss"]) for train, _ in
            net.itertrain(data, algo=algo, max_updates=updates, batch_size=batch_size,
                          validate_every=2, patience=100, **options)]


def regressor():
    net = theanets.Regressor([4, (6, "relu"), (5, "tanh"), 2])
    return trained(net, [X, Y], algo="nag", learning_rate=0.01, momentum=0.5) + \
        net.predict(X[:2]).ravel().tolist()


def regularized():
    net = theanets.Regressor([4, dict(size=6, activation="sigmoid"), 2])
    return trained(net, [X, Y], algo="adam", weight_l2=0.01, hidden_l1=0.01) + \
        net.predict(X[:2]).ravel().tolist()


def classifier():
    net = theanets.Classifier([4, (8, "relu"), 3])
    losses = trained(net, [X, LABELS], algo="sgd", learning_rate=0.1)
    return losses + net.predict_proba(X[:2]).ravel().tolist() + [net.score(X, LABELS)]


def weighted_classifier():
    net = theanets.Classifier([4, (5, "relu"), 3], weighted=True)
    weights = np.linspace(0.1, 1, 32)
    return trained(net, [X, LABELS, weights], algo="adagrad") + \
        [net.score(X, LABELS, weights)]


def tied_autoencoder():
    net = theanets.Autoencoder([4, (3, "tanh"), ("tied", 4)])
    return trained(net, [X], algo="rmsprop") + net.predict(X[:2]).ravel().tolist()


def noise_and_dropout():  # RandomStreams masks and noise inside the training graph
    net = theanets.Regressor([4, dict(size=6, activation="relu"), 2])
    return trained(net, [X, Y], algo="sgd", hidden_dropout=0.5, hidden_noise=0.1,
                   learning_rate=0.01, rng=11)


def activations():
    losses = []
    for act in ("linear", "logistic", "softplus", "softmax", "relu", "rect:min", "rect:max",
                "norm:mean", "norm:max", "norm:std", "norm:z", "prelu", "lgrelu",
                "maxout:3", "tanh+relu"):
        net = theanets.Regressor([4, (6, act), 2])
        losses += trained(net, [X, Y], algo="sgd", learning_rate=0.01, updates=1)
    return losses


def monitors():
    net = theanets.Regressor([4, (6, "relu"), 2])
    values = []
    for train, _ in net.itertrain([X, Y], algo="sgd", learning_rate=0.01, max_updates=2,
                                  batch_size=8, patience=100, monitor_gradients=True,
                                  monitors={"hid1:out": (0.1, 0.5), "out:out": (0.1,)}):
        values += [float(v) for _, v in sorted(train.items())]
    return values


def recurrent(form: str, algo: str = "rmsprop", **layer):
    def case():
        net = theanets.recurrent.Regressor([3, dict(form=form, size=4, **layer), 2])
        return trained(net, [SEQ, SEQ_Y], algo=algo, batch_size=3) + \
            net.predict(SEQ[:1]).ravel()[:6].tolist()
    return case


def recurrent_classifier():
    net = theanets.recurrent.Classifier([3, dict(form="rnn", size=4, activation="tanh"), 2])
    labels = (SEQ.sum(axis=2) > 0).astype("int32")
    return trained(net, [SEQ, labels], algo="sgd", learning_rate=0.05) + \
        net.predict_proba(SEQ[:1]).ravel()[:6].tolist()


CASES = {
    "regressor": regressor, "regularized": regularized, "classifier": classifier,
    "weighted_classifier": weighted_classifier, "tied_autoencoder": tied_autoencoder,
    "noise_and_dropout": noise_and_dropout, "activations": activations, "monitors": monitors,
    "lstm": recurrent("lstm"), "gru": recurrent("gru", "adadelta"), "rnn": recurrent("rnn"),
    "rrnn": recurrent("rrnn"), "mrnn": recurrent("mrnn"), "mut1": recurrent("mut1"),
    "scrn": recurrent("scrn"), "bidirectional": recurrent("bidirectional"),
    "clockwork": recurrent("clockwork", periods=(1, 2)),
    "recurrent_classifier": recurrent_classifier,
}

if __name__ == "__main__":
    main(CASES, "theanets")
