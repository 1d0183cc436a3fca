"""The deeplearning.net Deep Belief Network tutorial (DBN.py) as its users ran it, at toy size:
sigmoid hidden layers (``mlp.HiddenLayer``) whose weights and biases are shared with RBMs
(``rbm.RBM``) drawing their binomials from ``MRG_RandomStreams``, greedy layer-wise CD-k
pre-training (one function per layer, the learning rate an ``In`` with a default, called by
keyword), then supervised fine-tuning of the whole stack with a logistic regression on top
(``logistic_sgd.LogisticRegression``) and the tutorials' early stopping on validation error.
Synthetic data squashed into (0, 1) stands in for MNIST.

    python dbn.py                   # with Theano
"""

from __future__ import print_function

import numpy

import theano
import theano.tensor as T
from theano.sandbox.rng_mrg import MRG_RandomStreams

from logistic_sgd import LogisticRegression, shared_dataset
from mlp import HiddenLayer
from rbm import RBM
from synthetic import classification_data


class DBN(object):
    """Deep Belief Network: RBMs stacked, the hidden layer of each the input of the next."""

    def __init__(self, numpy_rng, theano_rng=None, n_ins=784, hidden_layers_sizes=[500, 500],
                 n_outs=10):
        self.sigmoid_layers = []
        self.rbm_layers = []
        self.params = []
        self.n_layers = len(hidden_layers_sizes)
        assert self.n_layers > 0
        if not theano_rng:
            theano_rng = MRG_RandomStreams(numpy_rng.randint(2 ** 30))
        self.x = T.matrix('x')
        self.y = T.ivector('y')
        for i in range(self.n_layers):
            if i == 0:
                input_size = n_ins
                layer_input = self.x
            else:
                input_size = hidden_layers_sizes[i - 1]
                layer_input = self.sigmoid_layers[-1].output
            sigmoid_layer = HiddenLayer(rng=numpy_rng, input=layer_input, n_in=input_size,
                                        n_out=hidden_layers_sizes[i],
                                        activation=T.nnet.sigmoid)
            self.sigmoid_layers.append(sigmoid_layer)
            self.params.extend(sigmoid_layer.params)
            rbm_layer = RBM(numpy_rng=numpy_rng, theano_rng=theano_rng, input=layer_input,
                            n_visible=input_size, n_hidden=hidden_layers_sizes[i],
                            W=sigmoid_layer.W, hbias=sigmoid_layer.b)
            self.rbm_layers.append(rbm_layer)
        self.logLayer = LogisticRegression(input=self.sigmoid_layers[-1].output,
                                           n_in=hidden_layers_sizes[-1], n_out=n_outs)
        self.params.extend(self.logLayer.params)
        self.finetune_cost = self.logLayer.negative_log_likelihood(self.y)
        self.errors = self.logLayer.errors(self.y)

    def pretraining_functions(self, train_set_x, batch_size, k):
        index = T.lscalar('index')
        learning_rate = T.scalar('lr')
        batch_begin = index * batch_size
        batch_end = batch_begin + batch_size
        pretrain_fns = []
        for rbm in self.rbm_layers:
            cost, updates = rbm.get_cost_updates(learning_rate, persistent=None, k=k)
            fn = theano.function(inputs=[index, theano.In(learning_rate, value=0.1)],
                                 outputs=cost, updates=updates,
                                 givens={self.x: train_set_x[batch_begin:batch_end]})
            pretrain_fns.append(fn)
        return pretrain_fns

    def build_finetune_functions(self, datasets, batch_size, learning_rate):
        (train_set_x, train_set_y) = datasets[0]
        (valid_set_x, valid_set_y) = datasets[1]
        (test_set_x, test_set_y) = datasets[2]
        n_valid_batches = valid_set_x.get_value(borrow=True).shape[0] // batch_size
        n_test_batches = test_set_x.get_value(borrow=True).shape[0] // batch_size
        index = T.lscalar('index')
        gparams = T.grad(self.finetune_cost, self.params)
        updates = []
        for param, gparam in zip(self.params, gparams):
            updates.append((param, param - gparam * learning_rate))
        train_fn = theano.function(
            inputs=[index], outputs=self.finetune_cost, updates=updates,
            givens={self.x: train_set_x[index * batch_size: (index + 1) * batch_size],
                    self.y: train_set_y[index * batch_size: (index + 1) * batch_size]})
        test_score_i = theano.function(
            [index], self.errors,
            givens={self.x: test_set_x[index * batch_size: (index + 1) * batch_size],
                    self.y: test_set_y[index * batch_size: (index + 1) * batch_size]})
        valid_score_i = theano.function(
            [index], self.errors,
            givens={self.x: valid_set_x[index * batch_size: (index + 1) * batch_size],
                    self.y: valid_set_y[index * batch_size: (index + 1) * batch_size]})

        def valid_score():
            return [valid_score_i(i) for i in range(n_valid_batches)]

        def test_score():
            return [test_score_i(i) for i in range(n_test_batches)]

        return train_fn, valid_score, test_score


def load_data(n_in, n_out):
    sets = []
    for x, y in classification_data(4321, n_in, n_out, sizes=(60, 30, 30)):
        sets.append(shared_dataset((1. / (1. + numpy.exp(-x)), y)))
    return sets


def test_DBN(finetune_lr=0.1, pretraining_epochs=2, pretrain_lr=0.01, k=2,
             training_epochs=6, batch_size=10, n_in=12, n_out=3):
    datasets = load_data(n_in, n_out)
    train_set_x, train_set_y = datasets[0]
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    numpy_rng = numpy.random.RandomState(123)
    dbn = DBN(numpy_rng=numpy_rng, n_ins=n_in, hidden_layers_sizes=[10, 8], n_outs=n_out)
    pretraining_fns = dbn.pretraining_functions(train_set_x=train_set_x,
                                                batch_size=batch_size, k=k)
    pretrain_costs = []
    for i in range(dbn.n_layers):
        for epoch in range(pretraining_epochs):
            c = []
            for batch_index in range(n_train_batches):
                c.append(pretraining_fns[i](index=batch_index, lr=pretrain_lr))
            print('Pre-training layer %i, epoch %d, cost ' % (i, epoch), numpy.mean(c))
            pretrain_costs.append(float(numpy.mean(c)))
    # the default learning rate of the first layer's function, once
    pretrain_costs.append(float(pretraining_fns[0](0)))

    train_fn, validate_model, test_model = dbn.build_finetune_functions(
        datasets=datasets, batch_size=batch_size, learning_rate=finetune_lr)
    patience = 4 * n_train_batches
    patience_increase = 2.
    improvement_threshold = 0.995
    validation_frequency = min(n_train_batches, patience / 2)
    best_validation_loss = numpy.inf
    test_score = 0.
    best_iter = 0
    done_looping = False
    epoch = 0
    finetune_costs = []
    validation = []
    while (epoch < training_epochs) and (not done_looping):
        epoch = epoch + 1
        for minibatch_index in range(n_train_batches):
            finetune_costs.append(float(train_fn(minibatch_index)))
            iter = (epoch - 1) * n_train_batches + minibatch_index
            if (iter + 1) % validation_frequency == 0:
                validation_losses = validate_model()
                this_validation_loss = numpy.mean(validation_losses, dtype='float64')
                validation.append(float(this_validation_loss))
                print('epoch %i, minibatch %i/%i, validation error %f %%' % (
                    epoch, minibatch_index + 1, n_train_batches,
                    this_validation_loss * 100.))
                if this_validation_loss < best_validation_loss:
                    if this_validation_loss < best_validation_loss * improvement_threshold:
                        patience = max(patience, iter * patience_increase)
                    best_validation_loss = this_validation_loss
                    best_iter = iter
                    test_losses = test_model()
                    test_score = numpy.mean(test_losses, dtype='float64')
            if patience <= iter:
                done_looping = True
                break
    print('Optimization complete with best validation score of %f %%, obtained at '
          'iteration %i, with test performance %f %%' % (
              best_validation_loss * 100., best_iter + 1, test_score * 100.))
    dtypes = [str(pretraining_fns[1](0).dtype), str(train_fn(0).dtype),
              str(numpy.asarray(validate_model()[0]).dtype)] + \
        [str(p.get_value().dtype) for p in dbn.params]
    return {'pretrain_costs': pretrain_costs, 'finetune_costs': finetune_costs,
            'dtypes': dtypes,
            'validation': validation, 'best': [float(best_validation_loss), best_iter,
                                               float(test_score)],
            'params': {'%d_%s' % (i, p.name): p.get_value().tolist()
                       for i, p in enumerate(dbn.params)}}


def main():
    return test_DBN()


if __name__ == '__main__':
    main()
