"""downhill 0.4 (Theano optimizers) minimizing a least-squares loss with each of its
algorithms, as its documentation shows: ``downhill.build(algo, loss, params, inputs)`` then
``iterate`` over a ``downhill.Dataset``. Each case: the losses of six updates, then the first
weights and the bias. See :mod:`library_harness` for running and recording."""

from library_harness import main, setup

setup()

import numpy as np  # noqa: E402
import theano  # noqa: E402
import theano.tensor as TT  # noqa: E402

import downhill  # noqa: E402


def minimized(algo: str, **options) -> list:
    rng = np.random.RandomState(4)
    x_data = rng.randn(64, 5)
    y_data = x_data.dot(rng.randn(5, 2)) + 0.1 * rng.randn(64, 2)
    x, y = TT.matrix("x"), TT.matrix("y")
    w = theano.shared(np.zeros((5, 2)), name="w")
    b = theano.shared(np.zeros(2), name="b")
    loss = TT.sqr(TT.dot(x, w) + b - y).mean()
    opt = downhill.build(algo, loss=loss, params=[w, b], inputs=[x, y],
                         monitors=[("wnorm", TT.sqrt((w * w).sum()))], monitor_gradients=True)
    data = downhill.Dataset([x_data, y_data], batch_size=16, rng=5)
    losses = [float(train["loss"]) for train, _ in
              opt.iterate(data, max_updates=6, validate_every=2, patience=100, **options)]
    return losses + w.get_value().ravel()[:4].tolist() + b.get_value().tolist()


CASES = {
    "sgd": lambda: minimized("sgd", learning_rate=0.05, momentum=0.5),
    "nag": lambda: minimized("nag", learning_rate=0.05, momentum=0.9),
    "rprop": lambda: minimized("rprop"),
    "adagrad": lambda: minimized("adagrad"),
    "rmsprop": lambda: minimized("rmsprop", learning_rate=0.01),
    "adadelta": lambda: minimized("adadelta"),
    "adam": lambda: minimized("adam"),
    # ESGD: Hessian-vector products through Rop and MRG random vectors
    "esgd": lambda: minimized("esgd", learning_rate=0.01, rms_halflife=5),
    "sgd-clip": lambda: minimized("sgd", learning_rate=0.1, max_gradient_elem=0.5),
    "sgd-norm": lambda: minimized("sgd", learning_rate=0.1, max_gradient_norm=1.0,
                                  nesterov=True, momentum=0.5),
}

if __name__ == "__main__":
    main(CASES, "downhill")
