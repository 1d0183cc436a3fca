"""The deeplearning.net LSTM sentiment tutorial (lstm.py, 2015) as its users ran it, at toy
size: parameters in an OrderedDict of shared variables (``tparams``), word embeddings looked up
with ``Wemb[x.flatten()].reshape(...)``, an LSTM layer in ``scan`` over a padded (time,
samples) batch with a mask, ``tensor.alloc`` initial states, mean pooling over time, dropout
from ``RandomStreams`` switched by a ``use_noise`` shared flag, weight decay, and the three
optimizers built as ``f_grad_shared``/``f_update`` function pairs (adadelta, rmsprop, sgd);
minibatches shuffled each epoch, validation/test error every few updates, early stopping that
keeps the best parameters (``unzip``/``zipp``). Synthetic "reviews" stand in for IMDB.

    python lstm_imdb.py                   # with Theano
"""

from __future__ import print_function

from collections import OrderedDict

import numpy

import theano
from theano import config
import theano.tensor as tensor
from theano.tensor.shared_randomstreams import RandomStreams

SEED = 123


def numpy_floatX(data):
    return numpy.asarray(data, dtype=config.floatX)


def make_reviews(rng, n, n_words, min_len=3, max_len=9):
    """Word-id sequences labelled 1 when they hold more "good" words (ids in the lower half)
    than "bad" ones, with some label noise; id 0 is padding and never used."""
    seqs, labels = [], []
    for _ in range(n):
        length = rng.randint(min_len, max_len + 1)
        words = rng.randint(1, n_words, size=length)
        good = (words < n_words // 2).sum()
        label = int(good * 2 > length)
        if rng.rand() < 0.1:
            label = 1 - label
        seqs.append(list(words))
        labels.append(label)
    return seqs, labels


def get_minibatches_idx(rng, n, minibatch_size, shuffle=False):
    idx_list = numpy.arange(n, dtype="int32")
    if shuffle:
        rng.shuffle(idx_list)
    minibatches = []
    start = 0
    for _ in range(n // minibatch_size):
        minibatches.append(idx_list[start:start + minibatch_size])
        start += minibatch_size
    if start != n:
        minibatches.append(idx_list[start:])
    return list(zip(range(len(minibatches)), minibatches))


def prepare_data(seqs, labels):
    """(time, samples) int64 word ids, their float mask, and the labels."""
    lengths = [len(s) for s in seqs]
    n_samples = len(seqs)
    maxlen = numpy.max(lengths)
    x = numpy.zeros((maxlen, n_samples)).astype('int64')
    x_mask = numpy.zeros((maxlen, n_samples)).astype(config.floatX)
    for idx, s in enumerate(seqs):
        x[:lengths[idx], idx] = s
        x_mask[:lengths[idx], idx] = 1.
    return x, x_mask, labels


def zipp(params, tparams):
    for kk, vv in params.items():
        tparams[kk].set_value(vv)


def unzip(zipped):
    new_params = OrderedDict()
    for kk, vv in zipped.items():
        new_params[kk] = vv.get_value()
    return new_params


def dropout_layer(state_before, use_noise, trng):
    proj = tensor.switch(use_noise,
                         (state_before *
                          trng.binomial(state_before.shape, p=0.5, n=1,
                                        dtype=state_before.dtype)),
                         state_before * 0.5)
    return proj


def _p(pp, name):
    return '%s_%s' % (pp, name)


def ortho_weight(rng, ndim):
    """An orthogonal matrix. The tutorial takes U from numpy.linalg.svd of a Gaussian matrix;
    LAPACK builds differ in the signs they choose, so this orthonormalises the columns by
    Gram-Schmidt instead, which gives the same numbers under every NumPy."""
    W = rng.randn(ndim, ndim)
    Q = numpy.zeros_like(W)
    for j in range(ndim):
        v = W[:, j].copy()
        for i in range(j):
            v -= (Q[:, i] * W[:, j]).sum() * Q[:, i]
        Q[:, j] = v / numpy.sqrt((v * v).sum())
    return Q.astype(config.floatX)


def init_params(rng, options):
    params = OrderedDict()
    params['Wemb'] = (0.01 * rng.rand(options['n_words'], options['dim_proj'])).astype(
        config.floatX)
    params = param_init_lstm(rng, options, params, prefix=options['encoder'])
    params['U'] = 0.01 * rng.randn(options['dim_proj'], options['ydim']).astype(config.floatX)
    params['b'] = numpy.zeros((options['ydim'],)).astype(config.floatX)
    return params


def init_tparams(params):
    tparams = OrderedDict()
    for kk, pp in params.items():
        tparams[kk] = theano.shared(params[kk], name=kk)
    return tparams


def param_init_lstm(rng, options, params, prefix='lstm'):
    dim = options['dim_proj']
    params[_p(prefix, 'W')] = numpy.concatenate([ortho_weight(rng, dim) for _ in range(4)],
                                                axis=1)
    params[_p(prefix, 'U')] = numpy.concatenate([ortho_weight(rng, dim) for _ in range(4)],
                                                axis=1)
    params[_p(prefix, 'b')] = numpy.zeros((4 * dim,)).astype(config.floatX)
    return params


def lstm_layer(tparams, state_below, options, prefix='lstm', mask=None):
    nsteps = state_below.shape[0]
    if state_below.ndim == 3:
        n_samples = state_below.shape[1]
    else:
        n_samples = 1
    assert mask is not None

    def _slice(_x, n, dim):
        if _x.ndim == 3:
            return _x[:, :, n * dim:(n + 1) * dim]
        return _x[:, n * dim:(n + 1) * dim]

    def _step(m_, x_, h_, c_):
        preact = tensor.dot(h_, tparams[_p(prefix, 'U')])
        preact += x_
        i = tensor.nnet.sigmoid(_slice(preact, 0, options['dim_proj']))
        f = tensor.nnet.sigmoid(_slice(preact, 1, options['dim_proj']))
        o = tensor.nnet.sigmoid(_slice(preact, 2, options['dim_proj']))
        c = tensor.tanh(_slice(preact, 3, options['dim_proj']))
        c = f * c_ + i * c
        c = m_[:, None] * c + (1. - m_)[:, None] * c_
        h = o * tensor.tanh(c)
        h = m_[:, None] * h + (1. - m_)[:, None] * h_
        return h, c

    state_below = (tensor.dot(state_below, tparams[_p(prefix, 'W')]) +
                   tparams[_p(prefix, 'b')])
    dim_proj = options['dim_proj']
    rval, updates = theano.scan(_step,
                                sequences=[mask, state_below],
                                outputs_info=[tensor.alloc(numpy_floatX(0.), n_samples,
                                                           dim_proj),
                                              tensor.alloc(numpy_floatX(0.), n_samples,
                                                           dim_proj)],
                                name=_p(prefix, '_layers'),
                                n_steps=nsteps)
    return rval[0]


def sgd(lr, tparams, grads, x, mask, y, cost):
    gshared = [theano.shared(p.get_value() * 0., name='%s_grad' % k)
               for k, p in tparams.items()]
    gsup = [(gs, g) for gs, g in zip(gshared, grads)]
    f_grad_shared = theano.function([x, mask, y], cost, updates=gsup, name='sgd_f_grad_shared')
    pup = [(p, p - lr * g) for p, g in zip(tparams.values(), gshared)]
    f_update = theano.function([lr], [], updates=pup, name='sgd_f_update')
    return f_grad_shared, f_update


def adadelta(lr, tparams, grads, x, mask, y, cost):
    zipped_grads = [theano.shared(p.get_value() * numpy_floatX(0.), name='%s_grad' % k)
                    for k, p in tparams.items()]
    running_up2 = [theano.shared(p.get_value() * numpy_floatX(0.), name='%s_rup2' % k)
                   for k, p in tparams.items()]
    running_grads2 = [theano.shared(p.get_value() * numpy_floatX(0.), name='%s_rgrad2' % k)
                      for k, p in tparams.items()]
    zgup = [(zg, g) for zg, g in zip(zipped_grads, grads)]
    rg2up = [(rg2, 0.95 * rg2 + 0.05 * (g ** 2)) for rg2, g in zip(running_grads2, grads)]
    f_grad_shared = theano.function([x, mask, y], cost, updates=zgup + rg2up,
                                    name='adadelta_f_grad_shared')
    updir = [-tensor.sqrt(ru2 + 1e-6) / tensor.sqrt(rg2 + 1e-6) * zg
             for zg, ru2, rg2 in zip(zipped_grads, running_up2, running_grads2)]
    ru2up = [(ru2, 0.95 * ru2 + 0.05 * (ud ** 2)) for ru2, ud in zip(running_up2, updir)]
    param_up = [(p, p + ud) for p, ud in zip(tparams.values(), updir)]
    f_update = theano.function([lr], [], updates=ru2up + param_up, on_unused_input='ignore',
                               name='adadelta_f_update')
    return f_grad_shared, f_update


def rmsprop(lr, tparams, grads, x, mask, y, cost):
    zipped_grads = [theano.shared(p.get_value() * numpy_floatX(0.), name='%s_grad' % k)
                    for k, p in tparams.items()]
    running_grads = [theano.shared(p.get_value() * numpy_floatX(0.), name='%s_rgrad' % k)
                     for k, p in tparams.items()]
    running_grads2 = [theano.shared(p.get_value() * numpy_floatX(0.), name='%s_rgrad2' % k)
                      for k, p in tparams.items()]
    zgup = [(zg, g) for zg, g in zip(zipped_grads, grads)]
    rgup = [(rg, 0.95 * rg + 0.05 * g) for rg, g in zip(running_grads, grads)]
    rg2up = [(rg2, 0.95 * rg2 + 0.05 * (g ** 2)) for rg2, g in zip(running_grads2, grads)]
    f_grad_shared = theano.function([x, mask, y], cost, updates=zgup + rgup + rg2up,
                                    name='rmsprop_f_grad_shared')
    updir = [theano.shared(p.get_value() * numpy_floatX(0.), name='%s_updir' % k)
             for k, p in tparams.items()]
    updir_new = [(ud, 0.9 * ud - 1e-4 * zg / tensor.sqrt(rg2 - rg ** 2 + 1e-4))
                 for ud, zg, rg, rg2 in zip(updir, zipped_grads, running_grads, running_grads2)]
    param_up = [(p, p + udn[1]) for p, udn in zip(tparams.values(), updir_new)]
    f_update = theano.function([lr], [], updates=updir_new + param_up,
                               on_unused_input='ignore', name='rmsprop_f_update')
    return f_grad_shared, f_update


def build_model(tparams, options):
    trng = RandomStreams(SEED)
    use_noise = theano.shared(numpy_floatX(0.))
    x = tensor.matrix('x', dtype='int64')
    mask = tensor.matrix('mask', dtype=config.floatX)
    y = tensor.vector('y', dtype='int64')
    n_timesteps = x.shape[0]
    n_samples = x.shape[1]
    emb = tparams['Wemb'][x.flatten()].reshape([n_timesteps, n_samples, options['dim_proj']])
    proj = lstm_layer(tparams, emb, options, prefix=options['encoder'], mask=mask)
    proj = (proj * mask[:, :, None]).sum(axis=0)
    proj = proj / mask.sum(axis=0)[:, None]
    if options['use_dropout']:
        proj = dropout_layer(proj, use_noise, trng)
    pred = tensor.nnet.softmax(tensor.dot(proj, tparams['U']) + tparams['b'])
    f_pred_prob = theano.function([x, mask], pred, name='f_pred_prob')
    f_pred = theano.function([x, mask], pred.argmax(axis=1), name='f_pred')
    off = 1e-8
    cost = -tensor.log(pred[tensor.arange(n_samples), y] + off).mean()
    return use_noise, x, mask, y, f_pred_prob, f_pred, cost


def pred_probs(f_pred_prob, data, iterator):
    n_samples = len(data[0])
    probs = numpy.zeros((n_samples, 2)).astype(config.floatX)
    n_done = 0
    for _, valid_index in iterator:
        x, mask, y = prepare_data([data[0][t] for t in valid_index],
                                  numpy.array(data[1])[valid_index])
        probs[valid_index, :] = f_pred_prob(x, mask)
        n_done += len(valid_index)
    return probs


def pred_error(f_pred, data, iterator):
    valid_err = 0
    for _, valid_index in iterator:
        x, mask, y = prepare_data([data[0][t] for t in valid_index],
                                  numpy.array(data[1])[valid_index])
        preds = f_pred(x, mask)
        targets = numpy.array(data[1])[valid_index]
        valid_err += (preds == targets).sum()
    valid_err = 1. - numpy_floatX(valid_err) / len(data[0])
    return valid_err


def train_lstm(dim_proj=8, patience=2, max_epochs=3, dispFreq=4, decay_c=0.,
               lrate=0.0001, n_words=30, optimizer=adadelta, encoder='lstm', validFreq=4,
               batch_size=4, valid_batch_size=6, use_dropout=True, data_seed=7):
    model_options = dict(dim_proj=dim_proj, n_words=n_words, encoder=encoder,
                         use_dropout=use_dropout, ydim=2)
    data_rng = numpy.random.RandomState(data_seed)
    train = make_reviews(data_rng, 24, n_words)
    valid = make_reviews(data_rng, 10, n_words)
    test = make_reviews(data_rng, 10, n_words)
    shuffle_rng = numpy.random.RandomState(SEED)

    params = init_params(numpy.random.RandomState(SEED), model_options)
    tparams = init_tparams(params)
    (use_noise, x, mask, y, f_pred_prob, f_pred, cost) = build_model(tparams, model_options)
    if decay_c > 0.:
        decay_c = theano.shared(numpy_floatX(decay_c), name='decay_c')
        weight_decay = 0.
        weight_decay += (tparams['U'] ** 2).sum()
        weight_decay *= decay_c
        cost += weight_decay
    f_cost = theano.function([x, mask, y], cost, name='f_cost')
    grads = tensor.grad(cost, wrt=list(tparams.values()))
    f_grad = theano.function([x, mask, y], grads, name='f_grad')
    lr = tensor.scalar(name='lr')
    f_grad_shared, f_update = optimizer(lr, tparams, grads, x, mask, y, cost)

    kf_valid = get_minibatches_idx(shuffle_rng, len(valid[0]), valid_batch_size)
    kf_test = get_minibatches_idx(shuffle_rng, len(test[0]), valid_batch_size)
    history_errs = []
    best_p = None
    bad_count = 0
    uidx = 0
    estop = False
    costs = []
    for eidx in range(max_epochs):
        n_samples = 0
        kf = get_minibatches_idx(shuffle_rng, len(train[0]), batch_size, shuffle=True)
        for _, train_index in kf:
            uidx += 1
            use_noise.set_value(1.)
            y_batch = [train[1][t] for t in train_index]
            x_batch = [train[0][t] for t in train_index]
            x_batch, mask_batch, y_batch = prepare_data(x_batch, y_batch)
            n_samples += x_batch.shape[1]
            cost_value = f_grad_shared(x_batch, mask_batch, y_batch)
            f_update(lrate)
            costs.append(float(cost_value))
            if numpy.isnan(cost_value) or numpy.isinf(cost_value):
                print('bad cost detected: ', cost_value)
                return None
            if numpy.mod(uidx, dispFreq) == 0:
                print('Epoch ', eidx, 'Update ', uidx, 'Cost ', cost_value)
            if numpy.mod(uidx, validFreq) == 0:
                use_noise.set_value(0.)
                train_err = pred_error(f_pred, train, kf)
                valid_err = pred_error(f_pred, valid, kf_valid)
                test_err = pred_error(f_pred, test, kf_test)
                history_errs.append([float(valid_err), float(test_err)])
                if best_p is None or valid_err <= numpy.array(history_errs)[:, 0].min():
                    best_p = unzip(tparams)
                    bad_count = 0
                print('Train ', train_err, 'Valid ', valid_err, 'Test ', test_err)
                if (len(history_errs) > patience and
                        valid_err >= numpy.array(history_errs)[:-patience, 0].min()):
                    bad_count += 1
                    if bad_count > patience:
                        print('Early Stop!')
                        estop = True
                        break
        print('Seen %d samples' % n_samples)
        if estop:
            break

    if best_p is not None:
        zipp(best_p, tparams)
    else:
        best_p = unzip(tparams)
    use_noise.set_value(0.)
    kf_train_sorted = get_minibatches_idx(shuffle_rng, len(train[0]), batch_size)
    train_err = pred_error(f_pred, train, kf_train_sorted)
    valid_err = pred_error(f_pred, valid, kf_valid)
    test_err = pred_error(f_pred, test, kf_test)
    print('Train ', train_err, 'Valid ', valid_err, 'Test ', test_err)
    x_last, mask_last, y_last = prepare_data(test[0][:5], test[1][:5])
    gradients = f_grad(x_last, mask_last, y_last)
    return {
        'costs': costs,
        'history_errs': history_errs,
        'errors': [float(train_err), float(valid_err), float(test_err)],
        'updates': uidx,
        'test_probs': pred_probs(f_pred_prob, test, kf_test).tolist(),
        'f_cost': float(f_cost(x_last, mask_last, y_last)),
        'grad_norms': [float(numpy.sqrt((g ** 2).sum())) for g in gradients],
        'dtypes': [str(cost_value.dtype)] + [str(g.dtype) for g in gradients] +
                  [str(v.dtype) for v in best_p.values()],
        'params': {k: [float(v.sum()), float(numpy.abs(v).sum())] for k, v in best_p.items()},
    }


def main():
    return {
        'adadelta': train_lstm(optimizer=adadelta, decay_c=0.01),
        'rmsprop': train_lstm(optimizer=rmsprop, max_epochs=2, data_seed=8),
        'sgd': train_lstm(optimizer=sgd, lrate=0.5, max_epochs=2, use_dropout=False,
                          data_seed=9),
    }


if __name__ == '__main__':
    main()
