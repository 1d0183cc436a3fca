"""Logistic regression trained with conjugate gradients (``scipy.optimize.fmin_cg``), written as
the deeplearning.net tutorial (logistic_cg.py) did in 2017: all parameters in one flat shared
vector ``theta`` viewed as W and b, compiled minibatch cost and gradient functions (an offset
input selecting the minibatch through ``givens``), and SciPy driving ``set_value``.
Small synthetic data instead of MNIST.

    python logistic_cg.py                    # with Theano
"""

from __future__ import print_function

import numpy
import scipy.optimize

import theano
import theano.tensor as T

from logistic_sgd import shared_dataset
from synthetic import classification_data


class LogisticRegression(object):
    def __init__(self, input, n_in, n_out):
        self.theta = theano.shared(
            value=numpy.zeros(n_in * n_out + n_out, dtype=theano.config.floatX),
            name='theta', borrow=True)
        self.W = self.theta[0:n_in * n_out].reshape((n_in, n_out))
        self.b = self.theta[n_in * n_out:n_in * n_out + n_out]
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=-1)

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        if y.ndim != self.y_pred.ndim:
            raise TypeError('y should have the same shape as self.y_pred',
                            ('y', y.type, 'y_pred', self.y_pred.type))
        if y.dtype.startswith('int'):
            return T.mean(T.neq(self.y_pred, y))
        raise NotImplementedError()


def cg_optimization(n_epochs=6, batch_size=40, n_in=12, n_out=3):
    datasets = [shared_dataset(d) for d in classification_data(2468, n_in, n_out)]
    train_set_x, train_set_y = datasets[0]
    valid_set_x, valid_set_y = datasets[1]

    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    n_valid_batches = valid_set_x.get_value(borrow=True).shape[0] // batch_size

    print('... building the model')
    minibatch_offset = T.lscalar()
    x = T.matrix()
    y = T.ivector()
    classifier = LogisticRegression(input=x, n_in=n_in, n_out=n_out)
    cost = classifier.negative_log_likelihood(y).mean()

    validate_model = theano.function(
        [minibatch_offset],
        classifier.errors(y),
        givens={
            x: valid_set_x[minibatch_offset:minibatch_offset + batch_size],
            y: valid_set_y[minibatch_offset:minibatch_offset + batch_size]
        },
        name="validate"
    )
    batch_cost = theano.function(
        [minibatch_offset],
        cost,
        givens={
            x: train_set_x[minibatch_offset:minibatch_offset + batch_size],
            y: train_set_y[minibatch_offset:minibatch_offset + batch_size]
        },
        name="batch_cost"
    )
    batch_grad = theano.function(
        [minibatch_offset],
        T.grad(cost, classifier.theta),
        givens={
            x: train_set_x[minibatch_offset:minibatch_offset + batch_size],
            y: train_set_y[minibatch_offset:minibatch_offset + batch_size]
        },
        name="batch_grad"
    )

    def train_fn(theta_value):
        classifier.theta.set_value(theta_value, borrow=True)
        train_losses = [batch_cost(i * batch_size) for i in range(n_train_batches)]
        return numpy.mean(train_losses)

    def train_fn_grad(theta_value):
        classifier.theta.set_value(theta_value, borrow=True)
        grad = batch_grad(0)
        for i in range(1, n_train_batches):
            grad += batch_grad(i * batch_size)
        return grad / n_train_batches

    validation_scores = []

    def callback(theta_value):
        classifier.theta.set_value(theta_value, borrow=True)
        validation_losses = [validate_model(i * batch_size) for i in range(n_valid_batches)]
        this_validation_loss = numpy.mean(validation_losses)
        validation_scores.append(float(this_validation_loss))
        print('validation error %f %%' % (this_validation_loss * 100.,))

    print('Optimizing using scipy.optimize.fmin_cg...')
    best_theta, fopt, func_calls, grad_calls, warnflag = scipy.optimize.fmin_cg(
        f=train_fn,
        x0=numpy.zeros((n_in + 1) * n_out, dtype=x.dtype),
        fprime=train_fn_grad,
        callback=callback,
        disp=0,
        maxiter=n_epochs,
        full_output=True
    )
    print('Optimization complete, final cost %f' % fopt)
    zeros = numpy.zeros((n_in + 1) * n_out)
    return {'theta': best_theta.tolist(), 'fopt': float(fopt),
            'validation': validation_scores,
            'cost_at_zero': float(train_fn(zeros)),
            'grad_at_zero': train_fn_grad(zeros).tolist()}


def main():
    return cg_optimization()


if __name__ == '__main__':
    main()
