"""Multi-class logistic regression trained by minibatch SGD with early stopping, written as the
deeplearning.net tutorial (logistic_sgd.py) did in 2017: datasets in shared variables, labels
cast to int32, minibatches selected through ``givens``, the best model pickled and reloaded
for prediction. Small synthetic data instead of MNIST.

    python logistic_sgd.py                   # with Theano
"""

from __future__ import print_function

import pickle

import numpy

import theano
import theano.tensor as T

from synthetic import classification_data


class LogisticRegression(object):
    """p(y | x) = softmax(x W + b)."""

    def __init__(self, input, n_in, n_out):
        self.W = theano.shared(
            value=numpy.zeros((n_in, n_out), dtype=theano.config.floatX), name='W', borrow=True)
        self.b = theano.shared(
            value=numpy.zeros((n_out,), dtype=theano.config.floatX), name='b', borrow=True)
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]
        self.input = input

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        if y.ndim != self.y_pred.ndim:
            raise TypeError('y should have the same shape as self.y_pred',
                            ('y', y.type, 'y_pred', self.y_pred.type))
        if y.dtype.startswith('int'):
            return T.mean(T.neq(self.y_pred, y))
        raise NotImplementedError()


def shared_dataset(data_xy, borrow=True):
    """Keep the data set in shared variables (on the GPU, when there is one)."""
    data_x, data_y = data_xy
    shared_x = theano.shared(numpy.asarray(data_x, dtype=theano.config.floatX), borrow=borrow)
    shared_y = theano.shared(numpy.asarray(data_y, dtype=theano.config.floatX), borrow=borrow)
    return shared_x, T.cast(shared_y, 'int32')


def sgd_optimization(learning_rate=0.13, n_epochs=5, batch_size=20, n_in=12, n_out=3):
    datasets = [shared_dataset(d) for d in classification_data(1234, n_in, n_out)]
    train_set_x, train_set_y = datasets[0]
    valid_set_x, valid_set_y = datasets[1]
    test_set_x, test_set_y = datasets[2]

    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    n_valid_batches = valid_set_x.get_value(borrow=True).shape[0] // batch_size
    n_test_batches = test_set_x.get_value(borrow=True).shape[0] // batch_size

    print('... building the model')
    index = T.lscalar()
    x = T.matrix('x')
    y = T.ivector('y')
    classifier = LogisticRegression(input=x, n_in=n_in, n_out=n_out)
    cost = classifier.negative_log_likelihood(y)

    test_model = theano.function(
        inputs=[index],
        outputs=classifier.errors(y),
        givens={
            x: test_set_x[index * batch_size: (index + 1) * batch_size],
            y: test_set_y[index * batch_size: (index + 1) * batch_size]
        }
    )
    validate_model = theano.function(
        inputs=[index],
        outputs=classifier.errors(y),
        givens={
            x: valid_set_x[index * batch_size: (index + 1) * batch_size],
            y: valid_set_y[index * batch_size: (index + 1) * batch_size]
        }
    )
    g_W = T.grad(cost=cost, wrt=classifier.W)
    g_b = T.grad(cost=cost, wrt=classifier.b)
    updates = [(classifier.W, classifier.W - learning_rate * g_W),
               (classifier.b, classifier.b - learning_rate * g_b)]
    train_model = theano.function(
        inputs=[index],
        outputs=cost,
        updates=updates,
        givens={
            x: train_set_x[index * batch_size: (index + 1) * batch_size],
            y: train_set_y[index * batch_size: (index + 1) * batch_size]
        }
    )

    print('... training the model')
    patience = 60
    patience_increase = 2
    improvement_threshold = 0.995
    validation_frequency = min(n_train_batches, patience // 2)
    best_validation_loss = numpy.inf
    test_score = 0.
    best_model = None
    costs, validation, tests = [], [], []
    done_looping = False
    epoch = 0
    while (epoch < n_epochs) and (not done_looping):
        epoch = epoch + 1
        for minibatch_index in range(n_train_batches):
            minibatch_avg_cost = train_model(minibatch_index)
            costs.append(float(minibatch_avg_cost))
            iter = (epoch - 1) * n_train_batches + minibatch_index
            if (iter + 1) % validation_frequency == 0:
                validation_losses = [validate_model(i) for i in range(n_valid_batches)]
                this_validation_loss = numpy.mean(validation_losses)
                validation.append(float(this_validation_loss))
                print('epoch %i, minibatch %i/%i, validation error %f %%' %
                      (epoch, minibatch_index + 1, n_train_batches,
                       this_validation_loss * 100.))
                if this_validation_loss < best_validation_loss:
                    if this_validation_loss < best_validation_loss * improvement_threshold:
                        patience = max(patience, iter * patience_increase)
                    best_validation_loss = this_validation_loss
                    test_losses = [test_model(i) for i in range(n_test_batches)]
                    test_score = numpy.mean(test_losses)
                    tests.append(float(test_score))
                    print('     epoch %i, minibatch %i/%i, test error of best model %f %%' %
                          (epoch, minibatch_index + 1, n_train_batches, test_score * 100.))
                    best_model = pickle.dumps(classifier)
            if patience <= iter:
                done_looping = True
                break

    print('Optimization complete with best validation score of %f %%, with test performance '
          '%f %%' % (best_validation_loss * 100., test_score * 100.))
    return {'costs': costs, 'validation': validation, 'test': tests,
            'W': classifier.W.get_value().tolist(), 'b': classifier.b.get_value().tolist(),
            'epochs': epoch, 'predicted': predict(best_model, test_set_x.get_value()[:10])}


def predict(pickled_model, data):
    """Load the best model and predict labels, as the tutorial's predict() does."""
    classifier = pickle.loads(pickled_model)
    predict_model = theano.function(inputs=[classifier.input], outputs=classifier.y_pred)
    predicted_values = predict_model(data)
    print('Predicted values for the first 10 examples in test set:')
    print(predicted_values)
    return [int(v) for v in predicted_values]


def main():
    return sgd_optimization()


if __name__ == '__main__':
    main()
