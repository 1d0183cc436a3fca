"""A sparse (bag-of-words input) denoising-free autoencoder with tied weights, written as
Theano users wrote one: ``structured_dot`` for the encoder, the dense reconstruction compared
with ``dense_from_sparse(x)``, and a second model reconstructing only the stored entries
(``sampling_dot``) with structured elementwise ops."""
import json
import sys

import numpy as np
import theano
import theano.tensor as T
from theano import sparse

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from common import bag_of_words, rounded


def main():
    counts, _ = bag_of_words(40, 50, 8, seed=11)
    X_value = (counts > 0).astype('float64').tocsc()
    rng = np.random.RandomState(5)
    n_hidden = 6
    W = theano.shared(rng.uniform(-0.3, 0.3, size=(50, n_hidden)), name='W')
    bh = theano.shared(np.zeros(n_hidden), name='bh')
    bv = theano.shared(np.zeros(50), name='bv')
    x = sparse.csc_matrix('x', dtype='float64')
    h = T.nnet.sigmoid(sparse.structured_dot(x, W) + bh)
    r = T.nnet.sigmoid(T.dot(h, W.T) + bv)
    dense_x = sparse.dense_from_sparse(x)
    cost = T.nnet.binary_crossentropy(r, dense_x).sum(axis=1).mean()
    params = [W, bh, bv]
    grads = T.grad(cost, params)
    train = theano.function([x], cost, updates=[(p, p - 0.1 * g) for p, g in zip(params, grads)])
    costs = [float(train(X_value)) for _ in range(12)]

    # reconstruct only the stored entries: sampling_dot gives h . W[j] where x stores (i, j)
    V = theano.shared(rng.uniform(-0.3, 0.3, size=(50, n_hidden)), name='V')
    xr = sparse.csr_matrix('xr', dtype='float64')
    hid = T.tanh(sparse.dot(xr, V))
    scores = sparse.sampling_dot(hid, V, xr)
    probs = sparse.structured_sigmoid(scores)
    loss = -sparse.sp_sum(sparse.structured_log(probs), sparse_grad=True) / xr.shape[0]
    gV = T.grad(loss, V)
    step = theano.function([xr], loss, updates=[(V, V - 0.2 * gV)])
    losses = [float(step(X_value.tocsr())) for _ in range(8)]
    encode = theano.function([x], h)
    return {"costs": rounded(costs), "W_sum": rounded([W.get_value().sum()]),
            "code_head": rounded(encode(X_value)[:3]), "sampled_losses": rounded(losses),
            "V_sum": rounded([V.get_value().sum()])}


if __name__ == '__main__':
    print(json.dumps(main(), indent=1, sort_keys=True))
