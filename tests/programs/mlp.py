"""A multilayer perceptron (one tanh hidden layer, softmax output, L1 and L2 regularisation)
trained by minibatch SGD, written as the deeplearning.net tutorial (mlp.py) did in 2017:
weights drawn from a seeded RandomState, minibatches through ``givens`` on shared datasets,
one ``T.grad`` per parameter. Small synthetic data instead of MNIST.

    python mlp.py                            # with Theano
"""

from __future__ import print_function

import numpy

import theano
import theano.tensor as T

from logistic_sgd import LogisticRegression, shared_dataset
from synthetic import classification_data


class HiddenLayer(object):
    def __init__(self, rng, input, n_in, n_out, W=None, b=None, activation=T.tanh):
        self.input = input
        if W is None:
            W_values = numpy.asarray(
                rng.uniform(low=-numpy.sqrt(6. / (n_in + n_out)),
                            high=numpy.sqrt(6. / (n_in + n_out)),
                            size=(n_in, n_out)),
                dtype=theano.config.floatX)
            if activation == theano.tensor.nnet.sigmoid:
                W_values *= 4
            W = theano.shared(value=W_values, name='W', borrow=True)
        if b is None:
            b_values = numpy.zeros((n_out,), dtype=theano.config.floatX)
            b = theano.shared(value=b_values, name='b', borrow=True)
        self.W = W
        self.b = b
        lin_output = T.dot(input, self.W) + self.b
        self.output = (lin_output if activation is None else activation(lin_output))
        self.params = [self.W, self.b]


class MLP(object):
    def __init__(self, rng, input, n_in, n_hidden, n_out):
        self.hiddenLayer = HiddenLayer(rng=rng, input=input, n_in=n_in, n_out=n_hidden,
                                       activation=T.tanh)
        self.logRegressionLayer = LogisticRegression(input=self.hiddenLayer.output,
                                                     n_in=n_hidden, n_out=n_out)
        self.L1 = abs(self.hiddenLayer.W).sum() + abs(self.logRegressionLayer.W).sum()
        self.L2_sqr = (self.hiddenLayer.W ** 2).sum() + (self.logRegressionLayer.W ** 2).sum()
        self.negative_log_likelihood = self.logRegressionLayer.negative_log_likelihood
        self.errors = self.logRegressionLayer.errors
        self.params = self.hiddenLayer.params + self.logRegressionLayer.params
        self.input = input


def test_mlp(learning_rate=0.05, L1_reg=0.001, L2_reg=0.0001, n_epochs=4, batch_size=20,
             n_in=12, n_hidden=16, n_out=3):
    datasets = [shared_dataset(d) for d in classification_data(4321, n_in, n_out)]
    train_set_x, train_set_y = datasets[0]
    valid_set_x, valid_set_y = datasets[1]

    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    n_valid_batches = valid_set_x.get_value(borrow=True).shape[0] // batch_size

    print('... building the model')
    index = T.lscalar()
    x = T.matrix('x')
    y = T.ivector('y')
    rng = numpy.random.RandomState(1234)
    classifier = MLP(rng=rng, input=x, n_in=n_in, n_hidden=n_hidden, n_out=n_out)
    cost = (classifier.negative_log_likelihood(y)
            + L1_reg * classifier.L1
            + L2_reg * classifier.L2_sqr)

    validate_model = theano.function(
        inputs=[index],
        outputs=classifier.errors(y),
        givens={
            x: valid_set_x[index * batch_size:(index + 1) * batch_size],
            y: valid_set_y[index * batch_size:(index + 1) * batch_size]
        }
    )
    gparams = [T.grad(cost, param) for param in classifier.params]
    updates = [(param, param - learning_rate * gparam)
               for param, gparam in zip(classifier.params, gparams)]
    train_model = theano.function(
        inputs=[index],
        outputs=cost,
        updates=updates,
        givens={
            x: train_set_x[index * batch_size: (index + 1) * batch_size],
            y: train_set_y[index * batch_size: (index + 1) * batch_size]
        }
    )

    print('... training')
    costs, validation = [], []
    for epoch in range(1, n_epochs + 1):
        for minibatch_index in range(n_train_batches):
            costs.append(float(train_model(minibatch_index)))
        this_validation_loss = numpy.mean([validate_model(i) for i in range(n_valid_batches)])
        validation.append(float(this_validation_loss))
        print('epoch %i, minibatch %i/%i, validation error %f %%' %
              (epoch, n_train_batches, n_train_batches, this_validation_loss * 100.))
    result = {'costs': costs, 'validation': validation}
    for layer, param in zip(['hidden', 'hidden', 'output', 'output'], classifier.params):
        result['%s_%s' % (layer, param.name)] = param.get_value().tolist()
    return result


def main():
    return test_mlp()


if __name__ == '__main__':
    main()
