"""The deeplearning.net RNN-RBM tutorial (rnnrbm.py, Boulanger-Lewandowski et al.) as its
users ran it, at toy size: a recurrent network whose hidden state sets the biases of an RBM at
each time step. The RBM's Gibbs chain is a ``scan`` drawing binomials from a module-level
``RandomStreams``; training runs it on the time-dependent biases of a ``scan`` over the
sequence and takes the gradient of the free-energy difference with ``consider_constant`` on
the chain's end (the update dictionary of scan extended with the parameter updates, and draws
outside scan updated by their default updates); generation is a ``scan`` whose step builds an
RBM chain, a ``scan`` inside a ``scan``, each drawing. ``T.xlogx.xlogy0`` gives the monitor.
Short synthetic piano rolls stand in for the Nottingham MIDI files.

    python rnnrbm.py                   # with Theano
"""

from __future__ import print_function

import numpy

import theano
import theano.tensor as T
from theano.tensor.shared_randomstreams import RandomStreams

numpy.random.seed(0xbeef)
rng = RandomStreams(seed=numpy.random.randint(1 << 30))


def build_rbm(v, W, bv, bh, k):
    """The RBM's k-step Gibbs chain from ``v``: (chain end, cost whose gradient is the CD-k
    update, reconstruction monitor, updates of the chain's random states)."""

    def gibbs_step(v):
        mean_h = T.nnet.sigmoid(T.dot(v, W) + bh)
        h = rng.binomial(size=mean_h.shape, n=1, p=mean_h, dtype=theano.config.floatX)
        mean_v = T.nnet.sigmoid(T.dot(h, W.T) + bv)
        v = rng.binomial(size=mean_v.shape, n=1, p=mean_v, dtype=theano.config.floatX)
        return mean_v, v

    chain, updates = theano.scan(lambda v: gibbs_step(v)[1], outputs_info=[v], n_steps=k)
    v_sample = chain[-1]

    mean_v = gibbs_step(v_sample)[0]
    monitor = T.xlogx.xlogy0(v, mean_v) + T.xlogx.xlogy0(1 - v, 1 - mean_v)
    monitor = monitor.sum() / v.shape[0]

    def free_energy(v):
        return -(v * bv).sum() - T.log(1 + T.exp(T.dot(v, W) + bh)).sum()

    cost = (free_energy(v) - free_energy(v_sample)) / v.shape[0]
    return v_sample, cost, monitor, updates


def shared_normal(num_rows, num_cols, scale=1):
    return theano.shared(numpy.random.normal(scale=scale, size=(num_rows, num_cols))
                         .astype(theano.config.floatX))


def shared_zeros(*shape):
    return theano.shared(numpy.zeros(shape, dtype=theano.config.floatX))


def build_rnnrbm(n_visible, n_hidden, n_hidden_recurrent, k_train=15, k_generate=25,
                 n_generate=200):
    W = shared_normal(n_visible, n_hidden, 0.01)
    bv = shared_zeros(n_visible)
    bh = shared_zeros(n_hidden)
    Wuh = shared_normal(n_hidden_recurrent, n_hidden, 0.0001)
    Wuv = shared_normal(n_hidden_recurrent, n_visible, 0.0001)
    Wvu = shared_normal(n_visible, n_hidden_recurrent, 0.0001)
    Wuu = shared_normal(n_hidden_recurrent, n_hidden_recurrent, 0.0001)
    bu = shared_zeros(n_hidden_recurrent)
    params = W, bv, bh, Wuh, Wuv, Wvu, Wuu, bu

    v = T.matrix()
    u0 = T.zeros((n_hidden_recurrent,))

    def recurrence(v_t, u_tm1):
        bv_t = bv + T.dot(u_tm1, Wuv)
        bh_t = bh + T.dot(u_tm1, Wuh)
        generate = v_t is None
        if generate:
            v_t, _, _, updates = build_rbm(T.zeros((n_visible,)), W, bv_t, bh_t,
                                           k=k_generate)
        u_t = T.tanh(bu + T.dot(v_t, Wvu) + T.dot(u_tm1, Wuu))
        return ([v_t, u_t], updates) if generate else [u_t, bv_t, bh_t]

    (u_t, bv_t, bh_t), updates_train = theano.scan(
        lambda v_t, u_tm1, *_: recurrence(v_t, u_tm1),
        sequences=v, outputs_info=[u0, None, None], non_sequences=params)
    v_sample, cost, monitor, updates_rbm = build_rbm(v, W, bv_t[:], bh_t[:], k=k_train)
    updates_train.update(updates_rbm)

    (v_t, u_t), updates_generate = theano.scan(
        lambda u_tm1, *_: recurrence(None, u_tm1),
        outputs_info=[None, u0], non_sequences=params, n_steps=n_generate)
    return (v, v_sample, cost, monitor, params, updates_train, v_t, updates_generate)


class RnnRbm:
    def __init__(self, n_visible=12, n_hidden=10, n_hidden_recurrent=8, lr=0.05,
                 k_train=15, n_generate=200):
        (v, v_sample, cost, monitor, params, updates_train, v_t,
         updates_generate) = build_rnnrbm(n_visible, n_hidden, n_hidden_recurrent,
                                          k_train=k_train, n_generate=n_generate)
        self.params = params
        gradient = T.grad(cost, params, consider_constant=[v_sample])
        updates_train.update(((p, p - lr * g) for p, g in zip(params, gradient)))
        self.train_function = theano.function([v], monitor, updates=updates_train)
        self.generate_function = theano.function([], v_t, updates=updates_generate)

    def train(self, dataset, batch_size=100, num_epochs=200):
        history = []
        for epoch in range(num_epochs):
            numpy.random.shuffle(dataset)
            costs = []
            for s, sequence in enumerate(dataset):
                for i in range(0, len(sequence), batch_size):
                    cost = self.train_function(sequence[i:i + batch_size])
                    costs.append(cost)
            print('Epoch %i/%i' % (epoch + 1, num_epochs))
            print(numpy.mean(costs))
            history.append(float(numpy.mean(costs)))
        return history


def piano_rolls(n_sequences, length, n_visible):
    """Chords of three notes walking up the keyboard at a few speeds, a note flipped now and
    then."""
    data_rng = numpy.random.RandomState(42)
    rolls = []
    for s in range(n_sequences):
        roll = numpy.zeros((length, n_visible), dtype=theano.config.floatX)
        start, speed = data_rng.randint(n_visible), 1 + s % 2
        for t in range(length):
            for note in (0, 2, 4):
                roll[t, (start + speed * t + note) % n_visible] = 1.
        flips = data_rng.rand(length, n_visible) < 0.05
        rolls.append(numpy.where(flips, 1. - roll, roll).astype(theano.config.floatX))
    return rolls


def test_rnnrbm(batch_size=10, num_epochs=3):
    model = RnnRbm(n_generate=8)
    history = model.train(piano_rolls(3, 16, 12), batch_size=batch_size, num_epochs=num_epochs)
    generated = [model.generate_function() for _ in range(2)]
    return {
        'monitor': history,
        'generated': [g.tolist() for g in generated],
        'dtypes': [str(generated[0].dtype), str(model.train_function(generated[0]).dtype)] +
                  [str(p.get_value().dtype) for p in model.params],
        'params': [[float(p.get_value().sum()), float(numpy.abs(p.get_value()).sum())]
                   for p in model.params],
    }


def main():
    return test_rnnrbm()


if __name__ == '__main__':
    main()
