"""The deeplearning.net denoising autoencoder tutorial (dA.py, 2017) as its users ran it, at
toy size: tied weights (``W_prime = W.T``), the input corrupted by a binomial mask drawn from
``RandomStreams`` with ``p = 1 - corruption_level``, cross-entropy reconstruction, SGD updates
as a list of pairs; weights and biases given to the constructor or made there when ``not W``
(a shared variable's truth value, which the SdA tutorial relies on). Trained without
corruption, then with 30 %, as test_dA did. ``SdA.py`` stacks this class.

    python dA.py                   # with Theano
"""

from __future__ import print_function

import numpy

import theano
import theano.tensor as T
from theano.tensor.shared_randomstreams import RandomStreams

from synthetic import binary_patterns


class dA(object):
    """Denoising Auto-Encoder class (dA)."""

    def __init__(self, numpy_rng, theano_rng=None, input=None, n_visible=784, n_hidden=500,
                 W=None, bhid=None, bvis=None):
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        if not theano_rng:
            theano_rng = RandomStreams(numpy_rng.randint(2 ** 30))
        if not W:
            initial_W = numpy.asarray(
                numpy_rng.uniform(low=-4 * numpy.sqrt(6. / (n_hidden + n_visible)),
                                  high=4 * numpy.sqrt(6. / (n_hidden + n_visible)),
                                  size=(n_visible, n_hidden)),
                dtype=theano.config.floatX)
            W = theano.shared(value=initial_W, name='W', borrow=True)
        if not bvis:
            bvis = theano.shared(value=numpy.zeros(n_visible, dtype=theano.config.floatX),
                                 borrow=True)
        if not bhid:
            bhid = theano.shared(value=numpy.zeros(n_hidden, dtype=theano.config.floatX),
                                 name='b', borrow=True)
        self.W = W
        self.b = bhid
        self.b_prime = bvis
        self.W_prime = self.W.T
        self.theano_rng = theano_rng
        if input is None:
            self.x = T.dmatrix(name='input')
        else:
            self.x = input
        self.params = [self.W, self.b, self.b_prime]

    def get_corrupted_input(self, input, corruption_level):
        return self.theano_rng.binomial(size=input.shape, n=1, p=1 - corruption_level,
                                        dtype=theano.config.floatX) * input

    def get_hidden_values(self, input):
        return T.nnet.sigmoid(T.dot(input, self.W) + self.b)

    def get_reconstructed_input(self, hidden):
        return T.nnet.sigmoid(T.dot(hidden, self.W_prime) + self.b_prime)

    def get_cost_updates(self, corruption_level, learning_rate):
        tilde_x = self.get_corrupted_input(self.x, corruption_level)
        y = self.get_hidden_values(tilde_x)
        z = self.get_reconstructed_input(y)
        L = - T.sum(self.x * T.log(z) + (1 - self.x) * T.log(1 - z), axis=1)
        cost = T.mean(L)
        gparams = T.grad(cost, self.params)
        updates = [(param, param - learning_rate * gparam)
                   for param, gparam in zip(self.params, gparams)]
        return (cost, updates)


def test_dA(learning_rate=0.1, training_epochs=3, batch_size=10, n_visible=16, n_hidden=8):
    data = binary_patterns(5, 60, n_visible)
    train_set_x = theano.shared(numpy.asarray(data, dtype=theano.config.floatX), borrow=True)
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    index = T.lscalar()
    x = T.matrix('x')
    results = {}
    for corruption_level in (0., 0.3):
        rng = numpy.random.RandomState(123)
        theano_rng = RandomStreams(rng.randint(2 ** 30))
        da = dA(numpy_rng=rng, theano_rng=theano_rng, input=x, n_visible=n_visible,
                n_hidden=n_hidden)
        cost, updates = da.get_cost_updates(corruption_level=corruption_level,
                                            learning_rate=learning_rate)
        train_da = theano.function(
            [index], cost, updates=updates,
            givens={x: train_set_x[index * batch_size: (index + 1) * batch_size]})
        costs = []
        for epoch in range(training_epochs):
            c = []
            for batch_index in range(n_train_batches):
                c.append(train_da(batch_index))
            print('Training epoch %d, cost ' % epoch, numpy.mean(c, dtype='float64'))
            costs.append(float(numpy.mean(c, dtype='float64')))
        results['corruption_%d' % int(corruption_level * 100)] = {
            'costs': costs, 'W': da.W.get_value().tolist(),
            'b_prime': da.b_prime.get_value().tolist(),
            'dtypes': [str(c[-1].dtype)] + [str(p.get_value().dtype) for p in da.params]}
    return results


def main():
    return test_dA()


if __name__ == '__main__':
    main()
