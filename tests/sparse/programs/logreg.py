"""Sparse logistic regression on a bag-of-words matrix, written as Theano users wrote it:
a csr input, dense shared weights, ``sparse.dot`` for the scores, plain SGD; and the same
model with an embedding looked up through ``theano.sparse_grad`` (a sparse gradient)."""
import json
import sys

import numpy as np
import theano
import theano.tensor as T
from theano import sparse

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from common import bag_of_words, rounded


def main():
    counts, rng = bag_of_words(60, 200, 12, seed=7)
    X_value = counts.tocsr()
    w_true = rng.randn(200)
    y_value = (X_value.dot(w_true) > 0).astype('float64')

    X = sparse.csr_matrix('X', dtype='float64')
    y = T.dvector('y')
    W = theano.shared(np.zeros(200), name='W')
    b = theano.shared(0.0, name='b')
    p = T.nnet.sigmoid(sparse.dot(X, W) + b)
    xent = -y * T.log(p) - (1 - y) * T.log(1 - p)
    cost = xent.mean() + 0.01 * (W ** 2).sum()
    gW, gb = T.grad(cost, [W, b])
    train = theano.function([X, y], cost, updates=[(W, W - 0.5 * gW), (b, b - 0.5 * gb)])
    predict = theano.function([X], p > 0.5)
    costs = [float(train(X_value, y_value)) for _ in range(15)]
    accuracy = float((predict(X_value) == y_value).mean())

    # the same scores through the structured product, the weights as a column
    Wc = theano.shared(np.zeros((200, 1)), name='Wc')
    pc = T.nnet.sigmoid(sparse.structured_dot(X, Wc).flatten() + b)
    cost_c = T.nnet.binary_crossentropy(pc, y).mean()
    g_c = T.grad(cost_c, Wc)
    train_c = theano.function([X, y], cost_c, updates=[(Wc, Wc - 0.5 * g_c)])
    costs_c = [float(train_c(X_value, y_value)) for _ in range(10)]

    # an embedding bag: rows of E picked by word ids, with a sparse gradient
    ids = T.ivector('ids')
    E = theano.shared(np.random.RandomState(3).randn(200, 4) * 0.1, name='E')
    picked = theano.sparse_grad(E[ids])
    loss = (picked.sum(axis=0) ** 2).sum()
    gE = T.grad(loss, E)
    step = theano.function([ids], [loss, sparse.sp_sum(gE)], updates=[(E, E - 0.01 * gE)])
    word_ids = X_value.indices[:30].astype('int32')
    emb = [rounded(step(word_ids)) for _ in range(5)]
    return {"costs": rounded(costs), "accuracy": accuracy, "W_head": rounded(W.get_value()[:10]),
            "b": rounded([b.get_value()]), "costs_column": rounded(costs_c),
            "grad_type": str(gE.type), "embedding_steps": emb,
            "E_sum": rounded([E.get_value().sum()])}


if __name__ == '__main__':
    print(json.dumps(main(), indent=1, sort_keys=True))
