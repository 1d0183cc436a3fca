"""The deeplearning.net stacked denoising autoencoders tutorial (SdA.py, 2017) as its users ran
it, at toy size: sigmoid layers (``mlp.HiddenLayer``) whose weights and biases are handed to
``dA.dA`` layers (which test ``not W`` and ``not bhid`` on them), greedy layer-wise
pre-training with one function per layer taking the corruption level and learning rate as
``theano.In`` inputs with defaults (called by keyword, a different corruption per layer), then
fine-tuning with ``logistic_sgd.LogisticRegression`` on top and the tutorials' early stopping.
(tests/random/random_scan_programs.py has another SdA.)

    python SdA.py                   # with Theano
"""

from __future__ import print_function

import numpy

import theano
import theano.tensor as T
from theano.tensor.shared_randomstreams import RandomStreams

from dA import dA
from logistic_sgd import LogisticRegression, shared_dataset
from mlp import HiddenLayer
from synthetic import classification_data


class SdA(object):
    """Stacked denoising auto-encoder class (SdA)."""

    def __init__(self, numpy_rng, theano_rng=None, n_ins=784, hidden_layers_sizes=[500, 500],
                 n_outs=10, corruption_levels=[0.1, 0.1]):
        self.sigmoid_layers = []
        self.dA_layers = []
        self.params = []
        self.n_layers = len(hidden_layers_sizes)
        assert self.n_layers > 0
        if not theano_rng:
            theano_rng = RandomStreams(numpy_rng.randint(2 ** 30))
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
            dA_layer = dA(numpy_rng=numpy_rng, theano_rng=theano_rng, input=layer_input,
                          n_visible=input_size, n_hidden=hidden_layers_sizes[i],
                          W=sigmoid_layer.W, bhid=sigmoid_layer.b)
            self.dA_layers.append(dA_layer)
        self.logLayer = LogisticRegression(input=self.sigmoid_layers[-1].output,
                                           n_in=hidden_layers_sizes[-1], n_out=n_outs)
        self.params.extend(self.logLayer.params)
        self.finetune_cost = self.logLayer.negative_log_likelihood(self.y)
        self.errors = self.logLayer.errors(self.y)

    def pretraining_functions(self, train_set_x, batch_size):
        index = T.lscalar('index')
        corruption_level = T.scalar('corruption')
        learning_rate = T.scalar('lr')
        batch_begin = index * batch_size
        batch_end = batch_begin + batch_size
        pretrain_fns = []
        for dA_layer in self.dA_layers:
            cost, updates = dA_layer.get_cost_updates(corruption_level, learning_rate)
            fn = theano.function(
                inputs=[index, theano.In(corruption_level, value=0.2),
                        theano.In(learning_rate, value=0.1)],
                outputs=cost, updates=updates,
                givens={self.x: train_set_x[batch_begin: batch_end]})
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
        updates = [(param, param - gparam * learning_rate)
                   for param, gparam in zip(self.params, gparams)]
        train_fn = theano.function(
            inputs=[index], outputs=self.finetune_cost, updates=updates,
            givens={self.x: train_set_x[index * batch_size: (index + 1) * batch_size],
                    self.y: train_set_y[index * batch_size: (index + 1) * batch_size]},
            name='train')
        test_score_i = theano.function(
            [index], self.errors,
            givens={self.x: test_set_x[index * batch_size: (index + 1) * batch_size],
                    self.y: test_set_y[index * batch_size: (index + 1) * batch_size]},
            name='test')
        valid_score_i = theano.function(
            [index], self.errors,
            givens={self.x: valid_set_x[index * batch_size: (index + 1) * batch_size],
                    self.y: valid_set_y[index * batch_size: (index + 1) * batch_size]},
            name='valid')

        def valid_score():
            return [valid_score_i(i) for i in range(n_valid_batches)]

        def test_score():
            return [test_score_i(i) for i in range(n_test_batches)]

        return train_fn, valid_score, test_score


def test_SdA(finetune_lr=0.1, pretraining_epochs=2, pretrain_lr=0.1, training_epochs=5,
             batch_size=5, n_in=10, n_out=3):
    datasets = []
    for x, y in classification_data(77, n_in, n_out, sizes=(40, 20, 20)):
        datasets.append(shared_dataset((1. / (1. + numpy.exp(-x)), y)))
    train_set_x, train_set_y = datasets[0]
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    numpy_rng = numpy.random.RandomState(89677)
    print('... building the model')
    sda = SdA(numpy_rng=numpy_rng, n_ins=n_in, hidden_layers_sizes=[8, 6, 5], n_outs=n_out)
    print('... getting the pretraining functions')
    pretraining_fns = sda.pretraining_functions(train_set_x=train_set_x,
                                                batch_size=batch_size)
    print('... pre-training the model')
    corruption_levels = [.1, .2, .3]
    pretrain_costs = []
    for i in range(sda.n_layers):
        for epoch in range(pretraining_epochs):
            c = []
            for batch_index in range(n_train_batches):
                c.append(pretraining_fns[i](index=batch_index,
                                            corruption=corruption_levels[i],
                                            lr=pretrain_lr))
            print('Pre-training layer %i, epoch %d, cost %f' % (i, epoch, numpy.mean(c)))
            pretrain_costs.append(float(numpy.mean(c, dtype='float64')))
    # the defaults of the In inputs (corruption 0.2, learning rate 0.1)
    pretrain_costs.append(float(pretraining_fns[2](0)))

    print('... getting the finetuning functions')
    train_fn, validate_model, test_model = sda.build_finetune_functions(
        datasets=datasets, batch_size=batch_size, learning_rate=finetune_lr)
    patience = 10 * n_train_batches
    patience_increase = 2.
    improvement_threshold = 0.995
    validation_frequency = min(n_train_batches, patience // 2)
    best_validation_loss = numpy.inf
    best_iter = 0
    test_score = 0.
    done_looping = False
    epoch = 0
    finetune_costs, validation = [], []
    while (epoch < training_epochs) and (not done_looping):
        epoch = epoch + 1
        for minibatch_index in range(n_train_batches):
            minibatch_avg_cost = train_fn(minibatch_index)
            finetune_costs.append(float(minibatch_avg_cost))
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
    print('Optimization complete with best validation score of %f %%, on iteration %i, '
          'with test performance %f %%' % (best_validation_loss * 100., best_iter + 1,
                                            test_score * 100.))
    return {'pretrain_costs': pretrain_costs, 'finetune_costs': finetune_costs,
            'validation': validation,
            'best': [float(best_validation_loss), best_iter, float(test_score)],
            'dtypes': [str(minibatch_avg_cost.dtype)] +
                      [str(p.get_value().dtype) for p in sda.params],
            'params': {'%d_%s' % (i, p.name): p.get_value().tolist()
                       for i, p in enumerate(sda.params)}}


def main():
    return test_SdA()


if __name__ == '__main__':
    main()
