"""A denoising autoencoder and a contractive autoencoder trained by minibatch SGD, written as
the deeplearning.net tutorials (dA.py, cA.py) did in 2017 — tied weights, sigmoid units,
cross-entropy reconstruction cost — except that the corruption mask is drawn with NumPy each
epoch and kept in a shared variable (no random streams), and the contractive penalty uses the
Jacobian of the sigmoid hidden layer written out by hand. Small synthetic binary images.

    python autoencoders.py                   # with Theano
"""

from __future__ import print_function

import numpy

import theano
import theano.tensor as T

from synthetic import binary_patterns


def initial_W(numpy_rng, n_visible, n_hidden):
    return numpy.asarray(
        numpy_rng.uniform(low=-4 * numpy.sqrt(6. / (n_hidden + n_visible)),
                          high=4 * numpy.sqrt(6. / (n_hidden + n_visible)),
                          size=(n_visible, n_hidden)),
        dtype=theano.config.floatX)


class dA(object):
    """Denoising autoencoder; ``corruption_mask`` (0/1, the shape of the input) says which
    pixels survive the corruption."""

    def __init__(self, numpy_rng, input, corruption_mask, n_visible, n_hidden):
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        self.W = theano.shared(value=initial_W(numpy_rng, n_visible, n_hidden), name='W',
                               borrow=True)
        self.b = theano.shared(value=numpy.zeros(n_hidden, dtype=theano.config.floatX),
                               name='b', borrow=True)
        self.b_prime = theano.shared(value=numpy.zeros(n_visible, dtype=theano.config.floatX),
                                     name='b_prime', borrow=True)
        self.W_prime = self.W.T
        self.x = input
        self.corruption_mask = corruption_mask
        self.params = [self.W, self.b, self.b_prime]

    def get_corrupted_input(self, input):
        return self.corruption_mask * input

    def get_hidden_values(self, input):
        return T.nnet.sigmoid(T.dot(input, self.W) + self.b)

    def get_reconstructed_input(self, hidden):
        return T.nnet.sigmoid(T.dot(hidden, self.W_prime) + self.b_prime)

    def get_cost_updates(self, learning_rate):
        tilde_x = self.get_corrupted_input(self.x)
        y = self.get_hidden_values(tilde_x)
        z = self.get_reconstructed_input(y)
        L = - T.sum(self.x * T.log(z) + (1 - self.x) * T.log(1 - z), axis=1)
        cost = T.mean(L)
        gparams = T.grad(cost, self.params)
        updates = [(param, param - learning_rate * gparam)
                   for param, gparam in zip(self.params, gparams)]
        return (cost, updates)


class cA(object):
    """Contractive autoencoder: reconstruction cost plus the squared Frobenius norm of the
    Jacobian of the hidden units with respect to the input."""

    def __init__(self, numpy_rng, input, n_visible, n_hidden, n_batchsize):
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        self.n_batchsize = n_batchsize
        self.W = theano.shared(value=initial_W(numpy_rng, n_visible, n_hidden), name='W',
                               borrow=True)
        self.b = theano.shared(value=numpy.zeros(n_hidden, dtype=theano.config.floatX),
                               name='b', borrow=True)
        self.b_prime = theano.shared(value=numpy.zeros(n_visible, dtype=theano.config.floatX),
                                     name='b_prime', borrow=True)
        self.W_prime = self.W.T
        self.x = input
        self.params = [self.W, self.b, self.b_prime]

    def get_hidden_values(self, input):
        return T.nnet.sigmoid(T.dot(input, self.W) + self.b)

    def get_jacobian(self, hidden, W):
        """d hidden / d input, one (n_visible, n_hidden) matrix per example."""
        return T.reshape(hidden * (1 - hidden), (self.n_batchsize, 1, self.n_hidden)) * \
            T.reshape(W, (1, self.n_visible, self.n_hidden))

    def get_reconstructed_input(self, hidden):
        return T.nnet.sigmoid(T.dot(hidden, self.W_prime) + self.b_prime)

    def get_cost_updates(self, contraction_level, learning_rate):
        y = self.get_hidden_values(self.x)
        z = self.get_reconstructed_input(y)
        J = self.get_jacobian(y, self.W)
        self.L_rec = - T.sum(self.x * T.log(z) + (1 - self.x) * T.log(1 - z), axis=1)
        self.L_jacob = T.sum(J ** 2) / self.n_batchsize
        cost = T.mean(self.L_rec) + contraction_level * T.mean(self.L_jacob)
        gparams = T.grad(cost, self.params)
        updates = [(param, param - learning_rate * gparam)
                   for param, gparam in zip(self.params, gparams)]
        return (cost, updates)


def train_dA(learning_rate=0.1, training_epochs=4, batch_size=10, corruption_level=0.3,
             n_visible=16, n_hidden=8):
    data = binary_patterns(99, 80, n_visible)
    train_set_x = theano.shared(numpy.asarray(data, dtype=theano.config.floatX), borrow=True)
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    mask_rng = numpy.random.RandomState(123)
    corruption = theano.shared(numpy.ones_like(data), name='corruption', borrow=True)

    index = T.lscalar()
    x = T.matrix('x')
    mask = T.matrix('mask')
    rng = numpy.random.RandomState(123)
    da = dA(numpy_rng=rng, input=x, corruption_mask=mask, n_visible=n_visible,
            n_hidden=n_hidden)
    cost, updates = da.get_cost_updates(learning_rate=learning_rate)
    train_da = theano.function(
        [index],
        cost,
        updates=updates,
        givens={
            x: train_set_x[index * batch_size: (index + 1) * batch_size],
            mask: corruption[index * batch_size: (index + 1) * batch_size]
        }
    )
    epoch_costs = []
    for epoch in range(training_epochs):
        corruption.set_value(mask_rng.binomial(size=data.shape, n=1, p=1 - corruption_level)
                             .astype(theano.config.floatX), borrow=True)
        c = [train_da(batch_index) for batch_index in range(n_train_batches)]
        epoch_costs.append(float(numpy.mean(c)))
        print('Training epoch %d, cost ' % epoch, numpy.mean(c))
    return {'dA_costs': epoch_costs, 'dA_W': da.W.get_value().tolist(),
            'dA_b_prime': da.b_prime.get_value().tolist()}


def train_cA(learning_rate=0.1, training_epochs=4, batch_size=10, contraction_level=0.1,
             n_visible=16, n_hidden=8):
    data = binary_patterns(77, 80, n_visible)
    train_set_x = theano.shared(numpy.asarray(data, dtype=theano.config.floatX), borrow=True)
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size

    index = T.lscalar()
    x = T.matrix('x')
    rng = numpy.random.RandomState(123)
    ca = cA(numpy_rng=rng, input=x, n_visible=n_visible, n_hidden=n_hidden,
            n_batchsize=batch_size)
    cost, updates = ca.get_cost_updates(contraction_level=contraction_level,
                                        learning_rate=learning_rate)
    train_ca = theano.function(
        [index],
        [T.mean(ca.L_rec), ca.L_jacob],
        updates=updates,
        givens={x: train_set_x[index * batch_size: (index + 1) * batch_size]}
    )
    rec, jacob = [], []
    for epoch in range(training_epochs):
        c = [train_ca(batch_index) for batch_index in range(n_train_batches)]
        c_array = numpy.vstack(c)
        rec.append(float(numpy.mean(c_array[:, 0])))
        jacob.append(float(numpy.mean(numpy.sqrt(c_array[:, 1]))))
        print('Training epoch %d, reconstruction cost ' % epoch, rec[-1],
              ' jacobian norm ', jacob[-1])
    return {'cA_reconstruction': rec, 'cA_jacobian_norm': jacob,
            'cA_W': ca.W.get_value().tolist(), 'cA_b': ca.b.get_value().tolist()}


def main():
    results = train_dA()
    results.update(train_cA())
    return results


if __name__ == '__main__':
    main()
