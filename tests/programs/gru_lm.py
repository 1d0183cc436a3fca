"""A two-layer GRU language model trained with RMSprop, written as the widely read "RNN
tutorial" GRU code is (word embeddings, the gates' matrices stacked in one tensor, hard
sigmoids, a scan over the sentence with truncated backpropagation, ``theano.In`` with a
default decay, one function per use). Run by test_gru_lm.py with ``theano`` meaning jitgraph;
``record_theano.py gru_lm`` recorded Theano 1.0.5's results (THEANO_FLAGS=cxx=)."""

from __future__ import print_function

import numpy as np
import theano
import theano.tensor as T


class GRUTheano:
    def __init__(self, word_dim, hidden_dim=12, bptt_truncate=-1):
        self.word_dim, self.hidden_dim, self.bptt_truncate = word_dim, hidden_dim, bptt_truncate
        rng = np.random.RandomState(10)
        E = rng.uniform(-np.sqrt(1. / word_dim), np.sqrt(1. / word_dim), (hidden_dim, word_dim))
        U = rng.uniform(-np.sqrt(1. / hidden_dim), np.sqrt(1. / hidden_dim), (6, hidden_dim, hidden_dim))
        W = rng.uniform(-np.sqrt(1. / hidden_dim), np.sqrt(1. / hidden_dim), (6, hidden_dim, hidden_dim))
        V = rng.uniform(-np.sqrt(1. / hidden_dim), np.sqrt(1. / hidden_dim), (word_dim, hidden_dim))
        b = np.zeros((6, hidden_dim))
        c = np.zeros(word_dim)
        self.E = theano.shared(name='E', value=E.astype(theano.config.floatX))
        self.U = theano.shared(name='U', value=U.astype(theano.config.floatX))
        self.W = theano.shared(name='W', value=W.astype(theano.config.floatX))
        self.V = theano.shared(name='V', value=V.astype(theano.config.floatX))
        self.b = theano.shared(name='b', value=b.astype(theano.config.floatX))
        self.c = theano.shared(name='c', value=c.astype(theano.config.floatX))
        self.mE = theano.shared(name='mE', value=np.zeros(E.shape).astype(theano.config.floatX))
        self.mU = theano.shared(name='mU', value=np.zeros(U.shape).astype(theano.config.floatX))
        self.mV = theano.shared(name='mV', value=np.zeros(V.shape).astype(theano.config.floatX))
        self.mW = theano.shared(name='mW', value=np.zeros(W.shape).astype(theano.config.floatX))
        self.mb = theano.shared(name='mb', value=np.zeros(b.shape).astype(theano.config.floatX))
        self.mc = theano.shared(name='mc', value=np.zeros(c.shape).astype(theano.config.floatX))
        self.theano = {}
        self.__theano_build__()

    def __theano_build__(self):
        E, V, U, W, b, c = self.E, self.V, self.U, self.W, self.b, self.c
        x = T.ivector('x')
        y = T.ivector('y')

        def forward_prop_step(x_t, s_t1_prev, s_t2_prev):
            x_e = E[:, x_t]
            z_t1 = T.nnet.hard_sigmoid(U[0].dot(x_e) + W[0].dot(s_t1_prev) + b[0])
            r_t1 = T.nnet.hard_sigmoid(U[1].dot(x_e) + W[1].dot(s_t1_prev) + b[1])
            c_t1 = T.tanh(U[2].dot(x_e) + W[2].dot(s_t1_prev * r_t1) + b[2])
            s_t1 = (T.ones_like(z_t1) - z_t1) * c_t1 + z_t1 * s_t1_prev
            z_t2 = T.nnet.hard_sigmoid(U[3].dot(s_t1) + W[3].dot(s_t2_prev) + b[3])
            r_t2 = T.nnet.hard_sigmoid(U[4].dot(s_t1) + W[4].dot(s_t2_prev) + b[4])
            c_t2 = T.tanh(U[5].dot(s_t1) + W[5].dot(s_t2_prev * r_t2) + b[5])
            s_t2 = (T.ones_like(z_t2) - z_t2) * c_t2 + z_t2 * s_t2_prev
            o_t = T.nnet.softmax(V.dot(s_t2) + c)[0]
            return [o_t, s_t1, s_t2]

        [o, s, s2], updates = theano.scan(
            forward_prop_step, sequences=x, truncate_gradient=self.bptt_truncate,
            outputs_info=[None, dict(initial=T.zeros(self.hidden_dim)),
                          dict(initial=T.zeros(self.hidden_dim))])
        prediction = T.argmax(o, axis=1)
        o_error = T.sum(T.nnet.categorical_crossentropy(o, y))
        cost = o_error
        dE, dU, dW, db, dV, dc = T.grad(cost, [E, U, W, b, V, c])
        self.predict = theano.function([x], o)
        self.predict_class = theano.function([x], prediction)
        self.ce_error = theano.function([x, y], cost)
        self.bptt = theano.function([x, y], [dE, dU, dW, db, dV, dc])
        learning_rate = T.scalar('learning_rate')
        decay = T.scalar('decay')
        mE = decay * self.mE + (1 - decay) * dE ** 2
        mU = decay * self.mU + (1 - decay) * dU ** 2
        mW = decay * self.mW + (1 - decay) * dW ** 2
        mV = decay * self.mV + (1 - decay) * dV ** 2
        mb = decay * self.mb + (1 - decay) * db ** 2
        mc = decay * self.mc + (1 - decay) * dc ** 2
        self.sgd_step = theano.function(
            [x, y, learning_rate, theano.In(decay, value=0.9)], [],
            updates=[(E, E - learning_rate * dE / T.sqrt(mE + 1e-6)),
                     (U, U - learning_rate * dU / T.sqrt(mU + 1e-6)),
                     (W, W - learning_rate * dW / T.sqrt(mW + 1e-6)),
                     (V, V - learning_rate * dV / T.sqrt(mV + 1e-6)),
                     (b, b - learning_rate * db / T.sqrt(mb + 1e-6)),
                     (c, c - learning_rate * dc / T.sqrt(mc + 1e-6)),
                     (self.mE, mE), (self.mU, mU), (self.mW, mW), (self.mV, mV),
                     (self.mb, mb), (self.mc, mc)])

    def calculate_total_loss(self, X, Y):
        return np.sum([self.ce_error(x, y) for x, y in zip(X, Y)])

    def calculate_loss(self, X, Y):
        num_words = np.sum([len(y) for y in Y])
        return self.calculate_total_loss(X, Y) / float(num_words)


def main():
    """Train two models (full and truncated backpropagation) for three epochs on random
    sentences; the losses, a prediction, the gradients' norms and a parameter sum."""
    rng = np.random.RandomState(3)
    vocab = 20
    sents = [rng.randint(0, vocab, size=rng.randint(4, 9)).astype("int32") for _ in range(12)]
    X = [s[:-1] for s in sents]
    Y = [s[1:] for s in sents]
    out = {}
    for trunc in (-1, 3):
        model = GRUTheano(vocab, hidden_dim=12, bptt_truncate=trunc)
        losses = [float(model.calculate_loss(X, Y))]
        for epoch in range(3):
            for i in range(len(Y)):
                model.sgd_step(X[i], Y[i], 0.01)
            losses.append(float(model.calculate_loss(X, Y)))
            print('bptt_truncate %d epoch %d loss %.6f' % (trunc, epoch, losses[-1]))
        g = model.bptt(X[0], Y[0])
        out[f"trunc{trunc}"] = {"losses": losses, "pred": model.predict_class(X[1]).tolist(),
                                "grad_norms": [float(np.linalg.norm(a)) for a in g],
                                "E_sum": float(model.E.get_value().sum())}
    return out
