"""Programs written the way Theano users write them (an Elman RNN over word-window embeddings,
an LSTM sentiment classifier with masks trained by adadelta, a polynomial reduced by scan, a
mean-field Gibbs chain trained by CD-k), compared with the numbers Theano 1.0.5 gives for the
same programs (recorded with ``ORACLE_PY=1 theano-oracle``, rounded to 10 digits)."""

from collections import OrderedDict

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.scan import scan

floatX = "float64"
RESULTS = {}


def record(key, *values):
    RESULTS[key] = values[0] if len(values) == 1 else list(values)


def sh(v, name):
    return theano.shared(np.asarray(v, dtype=floatX), name=name)


# ---- 1. Elman RNN over word-window embeddings (rnnslu style)
def elman():
    rng = np.random.RandomState(1234)
    nh, nc, ne, de, cs = 7, 4, 20, 5, 3
    emb = sh(0.2 * rng.uniform(-1.0, 1.0, (ne + 1, de)), 'emb')
    wx = sh(0.2 * rng.uniform(-1.0, 1.0, (de * cs, nh)), 'wx')
    wh = sh(0.2 * rng.uniform(-1.0, 1.0, (nh, nh)), 'wh')
    w = sh(0.2 * rng.uniform(-1.0, 1.0, (nh, nc)), 'w')
    bh = sh(np.zeros(nh), 'bh'); b = sh(np.zeros(nc), 'b'); h0 = sh(np.zeros(nh), 'h0')
    params = [emb, wx, wh, w, bh, b, h0]
    idxs = T.imatrix(); x = emb[idxs].reshape((idxs.shape[0], de * cs)); y = T.ivector('y')
    def recurrence(x_t, h_tm1):
        h_t = T.nnet.sigmoid(T.dot(x_t, wx) + T.dot(h_tm1, wh) + bh)
        s_t = T.nnet.softmax((T.dot(h_t, w) + b).dimshuffle('x', 0))
        return [h_t, s_t]
    [h, s], _ = scan(fn=recurrence, sequences=x, outputs_info=[h0, None], n_steps=x.shape[0])
    p = s[:, 0, :]
    y_pred = T.argmax(p, axis=1)
    lr = T.scalar('lr')
    nll = -T.mean(T.log(p)[T.arange(x.shape[0]), y])
    gradients = T.grad(nll, params)
    updates = OrderedDict((p_, p_ - lr * g) for p_, g in zip(params, gradients))
    classify = theano.function(inputs=[idxs], outputs=y_pred)
    train = theano.function(inputs=[idxs, y, lr], outputs=nll, updates=updates)
    data = np.random.RandomState(7)
    losses = []
    for epoch in range(3):
        for k in range(4):
            n = 5 + k
            words = data.randint(0, ne + 1, size=n + 2)
            win = np.array([words[i:i + cs] for i in range(n)], dtype='int32')
            labels = data.randint(0, nc, size=n).astype('int32')
            losses.append(float(train(win, labels, 0.5)))
    record("elman_losses", [round(l, 10) for l in losses])
    record("elman_pred", classify(win).tolist())
    record("elman_wh_sum", round(float(wh.get_value().sum()), 10),
           round(float(emb.get_value().sum()), 10))


# ---- 2. LSTM sentiment classifier with masks, adadelta
def lstm():
    rng = np.random.RandomState(123)
    dim, n_words, ydim = 6, 30, 2
    def ortho(n):
        return 0.3 * rng.randn(n, n)
    Wemb = sh(0.01 * rng.rand(n_words, dim), 'Wemb')
    W = sh(np.concatenate([ortho(dim) for _ in range(4)], axis=1), 'lstm_W')
    U = sh(np.concatenate([ortho(dim) for _ in range(4)], axis=1), 'lstm_U')
    bl = sh(np.zeros(4 * dim), 'lstm_b')
    Uo = sh(0.01 * rng.randn(dim, ydim), 'U'); bo = sh(np.zeros(ydim), 'b')
    tparams = OrderedDict([(p.name, p) for p in [Wemb, W, U, bl, Uo, bo]])
    x = T.matrix('x', dtype='int64')
    mask = T.matrix('mask', dtype=floatX)
    y = T.vector('y', dtype='int64')
    n_timesteps = x.shape[0]; n_samples = x.shape[1]
    emb = Wemb[x.flatten()].reshape([n_timesteps, n_samples, dim])
    def _slice(_x, n, d): return _x[:, n * d:(n + 1) * d]
    def _step(m_, x_, h_, c_):
        preact = T.dot(h_, U) + x_
        i = T.nnet.sigmoid(_slice(preact, 0, dim)); f = T.nnet.sigmoid(_slice(preact, 1, dim))
        o = T.nnet.sigmoid(_slice(preact, 2, dim)); c = T.tanh(_slice(preact, 3, dim))
        c = f * c_ + i * c
        c = m_[:, None] * c + (1. - m_)[:, None] * c_
        h = o * T.tanh(c)
        h = m_[:, None] * h + (1. - m_)[:, None] * h_
        return h, c
    state_below = T.dot(emb, W) + bl
    rval, _ = scan(_step, sequences=[mask, state_below],
                   outputs_info=[T.alloc(np.asarray(0., dtype=floatX), n_samples, dim),
                                 T.alloc(np.asarray(0., dtype=floatX), n_samples, dim)],
                   name='lstm_layers', n_steps=n_timesteps)
    proj = rval[0]
    proj = (proj * mask[:, :, None]).sum(axis=0) / mask.sum(axis=0)[:, None]
    pred = T.nnet.softmax(T.dot(proj, Uo) + bo)
    cost = -T.log(pred[T.arange(n_samples), y] + 1e-8).mean()
    grads = T.grad(cost, wrt=list(tparams.values()))
    lr = T.scalar(name='lr')
    zipped_grads = [theano.shared(p.get_value() * 0., name='%s_grad' % k)
                    for k, p in tparams.items()]
    running_up2 = [theano.shared(p.get_value() * 0., name='%s_rup2' % k)
                   for k, p in tparams.items()]
    running_grads2 = [theano.shared(p.get_value() * 0., name='%s_rgrad2' % k)
                      for k, p in tparams.items()]
    zgup = [(zg, g) for zg, g in zip(zipped_grads, grads)]
    rg2up = [(rg2, 0.95 * rg2 + 0.05 * (g ** 2)) for rg2, g in zip(running_grads2, grads)]
    f_grad_shared = theano.function([x, mask, y], cost, updates=zgup + rg2up,
                                    name='adadelta_f_grad_shared')
    updir = [-T.sqrt(ru2 + 1e-6) / T.sqrt(rg2 + 1e-6) * zg
             for zg, ru2, rg2 in zip(zipped_grads, running_up2, running_grads2)]
    ru2up = [(ru2, 0.95 * ru2 + 0.05 * (ud ** 2)) for ru2, ud in zip(running_up2, updir)]
    param_up = [(p, p + ud) for p, ud in zip(tparams.values(), updir)]
    f_update = theano.function([lr], [], updates=ru2up + param_up, on_unused_input='ignore',
                               name='adadelta_f_update')
    f_pred_prob = theano.function([x, mask], pred, name='f_pred_prob')
    data = np.random.RandomState(5)
    costs = []
    for it in range(6):
        lengths = data.randint(2, 7, size=4)
        maxlen = lengths.max()
        xb = np.zeros((maxlen, 4), dtype='int64')
        mb = np.zeros((maxlen, 4), dtype=floatX)
        for j, L in enumerate(lengths):
            xb[:L, j] = data.randint(1, n_words, size=L); mb[:L, j] = 1.
        yb = data.randint(0, 2, size=4).astype('int64')
        costs.append(float(f_grad_shared(xb, mb, yb))); f_update(0.01)
    record("lstm_costs", [round(c, 10) for c in costs])
    record("lstm_pred", np.round(f_pred_prob(xb, mb), 10).tolist())
    record("lstm_U_sum", round(float(U.get_value().sum()), 10))


# ---- 3. polynomial with scan: reduction done by scan (the tutorial exercise)
def polynomial():
    coefficients = T.vector("coefficients"); x = T.scalar("x")
    max_coefficients_supported = 10000
    outputs_info = T.as_tensor_variable(np.asarray(0, 'float64'))
    components, updates = scan(fn=lambda coeff, power, prior, free_var:
                               prior + (coeff * (free_var ** power)),
                               sequences=[coefficients, T.arange(max_coefficients_supported)],
                               outputs_info=outputs_info, non_sequences=x)
    f = theano.function(inputs=[coefficients, x], outputs=components[-1], updates=updates)
    record("poly", f(np.asarray([1, 0, 2], dtype=floatX), 3),
           f(np.asarray([0.5, -1, 0.25, 3], dtype=floatX), 1.5))
    g = theano.function([coefficients, x], T.grad(components[-1], [coefficients, x]))
    record("poly_grad", np.hstack([np.ravel(v) for v in
                                   g(np.asarray([0.5, -1, 0.25, 3], dtype=floatX), 1.5)]))


# ---- 4. mean-field Gibbs-style chain (no random numbers), CD-k with means
def gibbs():
    rng = np.random.RandomState(99)
    nv, nh = 6, 4
    W = sh(0.1 * rng.randn(nv, nh), 'W'); bv = sh(np.zeros(nv), 'bv'); bh = sh(np.zeros(nh), 'bh')
    v0 = T.matrix('v0')
    def gibbs_vhv(v):
        h = T.nnet.sigmoid(T.dot(v, W) + bh)
        return T.nnet.sigmoid(T.dot(h, W.T) + bv)
    chain, updates = scan(gibbs_vhv, outputs_info=v0, n_steps=5)
    vk = chain[-1]
    def free_energy(v):
        return -T.dot(v, bv) - T.log(1 + T.exp(T.dot(v, W) + bh)).sum(axis=1)
    cost = T.mean(free_energy(v0)) - T.mean(free_energy(vk))
    params = [W, bv, bh]
    gparams = T.grad(cost, params, consider_constant=[vk])
    upd = OrderedDict(updates)
    for p, g in zip(params, gparams): upd[p] = p - 0.1 * g
    train = theano.function([v0], [cost, vk], updates=upd)
    data = (rng.rand(8, nv) > 0.5).astype(floatX)
    costs = []
    for _ in range(5):
        c, vkv = train(data); costs.append(float(c))
    record("gibbs_costs", [round(c, 10) for c in costs])
    record("gibbs_vk", np.round(vkv[:2], 10).tolist())
    record("gibbs_W_sum", round(float(W.get_value().sum()), 10))



# Theano 1.0.5 (ORACLE_PY=1)
RECORDED = {
    "elman_losses": [1.3907722246, 1.4344912466, 1.5271883661, 1.3420735103, 1.4349038585,
                     1.2914936932, 1.7297517031, 1.3156781656, 1.6407800912, 1.5362742008,
                     1.393936831, 1.3362059519],
    "elman_pred": [0, 0, 0, 0, 0, 0, 0, 0],
    "elman_wh_sum": [-1.2096086983, 1.2202451341],
    "lstm_costs": [0.6931540333, 0.6886789732, 0.6830132516, 0.6932727851, 0.6932738684,
                   0.6932663585],
    "lstm_pred": [[0.4922113191, 0.5077886809], [0.492204593, 0.507795407],
                  [0.4922076568, 0.5077923432], [0.4922042942, 0.5077957058]],
    "lstm_U_sum": -4.3309251318,
    "poly": [19.0, 9.6875],
    "poly_grad": [1.0, 1.5, 2.25, 3.375, 20.0],
    "gibbs_costs": [0.0273687811, 0.0022728783, -0.0194899132, -0.0382676991, -0.0543729843],
    "gibbs_vk": [[0.514230747, 0.5153331202, 0.4789526439, 0.5397963749, 0.5283214837,
                  0.4597020304]] * 2,
    "gibbs_W_sum": 0.2239986105,
}


@pytest.mark.parametrize("program", [elman, lstm, polynomial, gibbs])
def test_program_matches_theano(program):
    RESULTS.clear()
    program()
    prefix = program.__name__[:4]
    for key, want in RECORDED.items():
        if key.startswith(prefix):
            got = np.hstack([np.ravel(v) for v in np.atleast_1d(RESULTS[key])]) \
                if key == "poly_grad" else RESULTS[key]
            np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                                       rtol=1e-8, atol=1e-9, err_msg=key)
