"""theano_lstm 0.0.15: the language model of its README (an Embedding, stacked LSTM/RNN cells
and a softmax Layer run by ``theano.scan``, the library's ``masked_loss`` Op with its own
gradient Op, ``create_optimization_updates``), gradient clipping (a ``ViewOp`` subclass removed
by ``gof.OpRemove``), dropout masks from ``shared_randomstreams``, and ``wrap_params``, which
shares parameter buffers through ``set_value(borrow=True)`` (Theano updates them in place).
See :mod:`library_harness` for running and recording."""

from library_harness import main, setup

setup()

import numpy as np  # noqa: E402
import theano  # noqa: E402
import theano.tensor as T  # noqa: E402

from theano_lstm import (LSTM, RNN, Embedding, GatedInput, Layer, MultiDropout,  # noqa: E402
                         StackedCells, borrow_memory, create_optimization_updates,
                         masked_loss, wrap_params)

DATA = np.random.RandomState(2).randint(0, 7, size=(10, 6)).astype("int32")
LENGTHS = np.array([5, 4, 5, 3, 5, 2, 5, 5, 1, 4], dtype="int32")


def softmax(x):  # Layer gives (vocabulary, batch)
    return T.nnet.softmax(x.T).T


def initial_state_with_taps(layer, n):
    if not hasattr(layer, "initial_hidden_state"):
        return None
    return dict(initial=T.repeat(T.shape_padleft(layer.initial_hidden_state), n, axis=0),
                taps=[-1])


class Model:
    """The README's model, shrunk: vocabulary 7, embedding 4, hidden 5."""

    def __init__(self, stack_size=1, celltype=LSTM, method="adadelta", clip=False):
        self.model = StackedCells(4, celltype=celltype, layers=[5] * stack_size,
                                  clip_gradients=clip)
        self.model.layers.insert(0, Embedding(7, 4))
        self.model.layers.append(Layer(5, 7, activation=softmax))
        self.input_mat, self.lengths = T.imatrix(), T.ivector()

        def step(idx, *states):
            return self.model.forward(idx, prev_hiddens=[None] + list(states))[1:]

        inputs = self.input_mat[:, :-1]
        outputs_info = [initial_state_with_taps(layer, inputs.shape[0])
                        for layer in self.model.layers[1:-1]] + [None]
        result, _ = theano.scan(step, sequences=[inputs.T], outputs_info=outputs_info)
        predictions = result[-1].transpose((1, 0, 2))
        cost = masked_loss(predictions, self.input_mat[:, 1:], self.lengths,
                           T.zeros_like(self.lengths)).sum()
        updates = create_optimization_updates(cost, self.params, method=method)[0]
        self.update_fun = theano.function([self.input_mat, self.lengths], cost,
                                          updates=updates, allow_input_downcast=True)
        self.pred_fun = theano.function([self.input_mat], predictions)

    @property
    def params(self):
        return self.model.params


def trained(**options):
    m = Model(**options)
    costs = [float(m.update_fun(DATA, LENGTHS)) for _ in range(4)]
    return costs + m.pred_fun(DATA[:2]).ravel()[:8].tolist()


def shared_memory():
    m = Model(method="sgd")
    memories = wrap_params(m.params)
    values = [float(m.update_fun(DATA, LENGTHS))]
    view = np.ctypeslib.as_array(memories[0])
    # the update was written into the shared buffer (0.0), the variable still reads it (0.25)
    values.append(float(view.ravel()[0] - m.params[0].get_value(borrow=True).ravel()[0]))
    view[...] = 0.25
    values.append(float(m.params[0].get_value(borrow=True).ravel()[0]))
    borrow_memory(m.params[0], memories[0])
    return values + [float(m.update_fun(DATA, LENGTHS))]


def dropout_masks():
    f = theano.function([], MultiDropout([(3, 4), (2, 5)], 0.3))
    return [v for _ in range(2) for mask in f() for v in mask.ravel().tolist()]


def gated_input():
    x, h = T.matrix("x"), T.matrix("h")
    layer = GatedInput(4, 5, T.tanh)
    y = layer.activate(x, h)
    f = theano.function([x, h], [y] + T.grad(y.sum(), layer.params))
    rng = np.random.RandomState(1)
    return [v for a in f(rng.randn(2, 4), rng.randn(2, 5)) for v in a.ravel()[:6].tolist()]


CASES = {
    "lstm-adadelta": lambda: trained(),
    "lstm2-adagrad": lambda: trained(stack_size=2, method="adagrad"),
    "rnn-sgd": lambda: trained(celltype=RNN, method="sgd"),
    "lstm-clip": lambda: trained(method="sgd", clip=1.0),
    "shared_memory": shared_memory,
    "dropout_masks": dropout_masks,
    "gated_input": gated_input,
}

if __name__ == "__main__":
    main(CASES, "theano_lstm")
