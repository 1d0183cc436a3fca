"""More stochastic programs as Theano users wrote them: a variational autoencoder trained with
reparameterised MRG normal draws and Adam (minibatches through ``givens``), a character RNN
trained then sampled with MRG ``multinomial`` inside ``scan`` (float32 throughout), word2vec
with negative samples from ``random_integers`` and sparse row updates, and a random-walk
Metropolis sampler whose proposal and acceptance draws (RandomStreams and MRG) are made inside
``scan``; a small GAN fed MRG uniform noise, Gumbel-softmax sampling, and Bayes by backprop
with MRG normal weight noise. Small sizes, few epochs.

Parametrised on the library module like ``random_programs.py``; recorded under Theano 1.0.5 by
``record_random_programs.py`` and compared by ``test_random_programs.py``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

PROGRAMS: dict[str, Callable[[Any], dict]] = {}


def program(fn: Callable[[Any], dict]) -> Callable[[Any], dict]:
    PROGRAMS[fn.__name__] = fn
    return fn


def _streams(theano: Any) -> tuple[Any, Any]:
    __import__(f"{theano.__name__}.tensor.shared_randomstreams")
    __import__(f"{theano.__name__}.sandbox.rng_mrg")
    return (theano.tensor.shared_randomstreams.RandomStreams,
            theano.sandbox.rng_mrg.MRG_RandomStreams)


def _adam(theano: Any, cost: Any, params: list, lr: float = 0.01, b1: float = 0.9,
          b2: float = 0.999, eps: float = 1e-8) -> list:
    """Adam as users wrote it for Theano (moments in shared variables, a step counter)."""
    T = theano.tensor
    updates = []
    t = theano.shared(np.asarray(0.0), name="t")
    t_new = t + 1
    lr_t = lr * T.sqrt(1 - b2 ** t_new) / (1 - b1 ** t_new)
    for p, g in zip(params, T.grad(cost, params)):
        value = p.get_value(borrow=True)
        m = theano.shared(np.zeros(value.shape, dtype=value.dtype), name="m")
        v = theano.shared(np.zeros(value.shape, dtype=value.dtype), name="v")
        m_new = b1 * m + (1 - b1) * g
        v_new = b2 * v + (1 - b2) * T.sqr(g)
        updates += [(m, m_new), (v, v_new), (p, p - lr_t * m_new / (T.sqrt(v_new) + eps))]
    updates.append((t, t_new))
    return updates


@program
def vae_reparameterised_mrg(theano: Any) -> dict:
    """A variational autoencoder: a tanh encoder gives ``mu`` and ``log_var``, ``z = mu +
    exp(log_var / 2) * eps`` with ``eps = srng.normal(mu.shape)`` (MRG), a sigmoid decoder,
    binary cross-entropy plus the KL term, Adam; minibatches of a shared data set through
    ``givens``; then samples decoded from the prior and a test-time reconstruction."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    rng = np.random.RandomState(1234)
    n_vis, n_hid, n_lat, batch = 8, 6, 2, 5
    data = (rng.rand(20, n_vis) > 0.5).astype("float64")
    train_x = theano.shared(data, name="train_x", borrow=True)

    def layer(n_in, n_out, name):
        W = theano.shared(rng.normal(0, 0.2, (n_in, n_out)), name="W_" + name)
        b = theano.shared(np.zeros(n_out), name="b_" + name)
        return W, b

    (W_h, b_h), (W_mu, b_mu), (W_lv, b_lv) = (layer(n_vis, n_hid, "h"), layer(n_hid, n_lat, "mu"),
                                              layer(n_hid, n_lat, "lv"))
    (W_d, b_d), (W_o, b_o) = layer(n_lat, n_hid, "d"), layer(n_hid, n_vis, "o")
    params = [W_h, b_h, W_mu, b_mu, W_lv, b_lv, W_d, b_d, W_o, b_o]
    srng = MRG_RandomStreams(seed=4321)
    x, index = T.matrix("x"), T.lscalar("index")

    def decode(z):
        return T.nnet.sigmoid(T.dot(T.tanh(T.dot(z, W_d) + b_d), W_o) + b_o)

    h = T.tanh(T.dot(x, W_h) + b_h)
    mu, log_var = T.dot(h, W_mu) + b_mu, T.dot(h, W_lv) + b_lv
    eps = srng.normal(mu.shape, avg=0.0, std=1.0, dtype=theano.config.floatX)
    z = mu + T.exp(0.5 * log_var) * eps
    x_rec = decode(z)
    rec = T.nnet.binary_crossentropy(x_rec, x).sum(axis=1)
    kl = -0.5 * T.sum(1 + log_var - T.sqr(mu) - T.exp(log_var), axis=1)
    cost = T.mean(rec + kl)
    train = theano.function([index], [cost, T.mean(kl)], updates=_adam(theano, cost, params),
                            givens={x: train_x[index * batch:(index + 1) * batch]})
    out = {}
    for epoch in range(4):
        costs = np.asarray([train(i) for i in range(data.shape[0] // batch)])
        out[f"epoch{epoch}"] = costs
    z_prior = srng.normal((3, n_lat))
    out["prior_samples"] = theano.function([], decode(z_prior))()
    out["prior_samples2"] = theano.function([], decode(z_prior))()
    out["reconstruction"] = theano.function([x], decode(mu))(data[:3])
    out.update({p.name: p.get_value() for p in params})
    return out


@program
def char_rnn_sample_mrg_float32(theano: Any) -> dict:
    """A character RNN (float32 everywhere, as GPU users wrote it): trained a few SGD steps on
    one-hot sequences with the softmax cross-entropy through ``scan``, then sampled: inside a
    second ``scan`` each step draws the next character with ``MRG_RandomStreams.multinomial``
    from the softmax (with a temperature input) and feeds its one-hot back; scan's updates are
    given to the function, so every call draws new characters."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    rng = np.random.RandomState(7)
    n_chars, n_hid = 5, 6

    def f32(a):
        return np.asarray(a, dtype="float32")

    W_x = theano.shared(f32(rng.normal(0, 0.3, (n_chars, n_hid))), name="W_x")
    W_h = theano.shared(f32(rng.normal(0, 0.3, (n_hid, n_hid))), name="W_h")
    W_y = theano.shared(f32(rng.normal(0, 0.3, (n_hid, n_chars))), name="W_y")
    b_h = theano.shared(f32(np.zeros(n_hid)), name="b_h")
    b_y = theano.shared(f32(np.zeros(n_chars)), name="b_y")
    params = [W_x, W_h, W_y, b_h, b_y]
    seq = T.fmatrix("seq")  # one-hot rows
    h0 = T.zeros((n_hid,), dtype="float32")

    def step(x_t, h_prev):
        h = T.tanh(T.dot(x_t, W_x) + T.dot(h_prev, W_h) + b_h)
        # a 1-row matrix: Theano 1.0.5 padded a vector to one, jitgraph keeps vectors 1-d
        return h, T.nnet.softmax((T.dot(h, W_y) + b_y).reshape((1, n_chars)))[0]

    (hs, probs), _ = theano.scan(step, sequences=seq[:-1], outputs_info=[h0, None])
    cost = -T.mean(T.log(probs)[T.arange(seq.shape[0] - 1), T.argmax(seq[1:], axis=1)])
    lr = np.float32(0.5)
    train = theano.function([seq], cost, updates=[(p, p - lr * g)
                                                  for p, g in zip(params, T.grad(cost, params))])
    text = np.asarray([0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3], dtype="int64")
    onehot = np.eye(n_chars, dtype="float32")[text]
    out = {"costs": np.asarray([train(onehot) for _ in range(8)])}

    srng = MRG_RandomStreams(seed=99)
    temperature = T.fscalar("temperature")
    first = T.fvector("first")

    def sample_step(x_prev, h_prev):
        h = T.tanh(T.dot(x_prev, W_x) + T.dot(h_prev, W_h) + b_h)
        p = T.nnet.softmax(((T.dot(h, W_y) + b_y) / temperature).reshape((1, n_chars)))
        x_next = srng.multinomial(pvals=p, dtype="float32")[0]
        return x_next, h

    (chars, _), sample_updates = theano.scan(sample_step, outputs_info=[first, h0], n_steps=10)
    sample = theano.function([first, temperature], T.argmax(chars, axis=1),
                             updates=sample_updates)
    start = np.eye(n_chars, dtype="float32")[0]
    for k, temp in enumerate((1.0, 1.0, 0.5)):
        out[f"sample{k}"] = sample(start, temp)
    out.update({p.name: p.get_value() for p in params})
    return out


@program
def word2vec_negative_sampling(theano: Any) -> dict:
    """Skip-gram with negative sampling: negatives drawn by ``RandomStreams.random_integers``,
    looked up by advanced indexing, and only the rows used updated (``inc_subtensor`` on the
    embedding matrices, the gradient taken with respect to the looked-up rows)."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    rng = np.random.RandomState(3)
    vocab, dim, k_neg = 9, 4, 3
    emb_in = theano.shared((rng.rand(vocab, dim) - 0.5) / dim, name="emb_in")
    emb_out = theano.shared(np.zeros((vocab, dim)), name="emb_out")
    srng = RandomStreams(seed=2718)
    center, context = T.ivector("center"), T.ivector("context")
    negatives = srng.random_integers(size=(center.shape[0], k_neg), low=0, high=vocab - 1)
    v_c = emb_in[center]
    u_o = emb_out[context]
    u_n = emb_out[negatives]
    pos = T.log(T.nnet.sigmoid(T.sum(v_c * u_o, axis=1)))
    neg = T.log(T.nnet.sigmoid(-T.sum(u_n * v_c.dimshuffle(0, "x", 1), axis=2))).sum(axis=1)
    loss = -T.mean(pos + neg)
    g_c, g_o, g_n = T.grad(loss, [v_c, u_o, u_n])
    lr = 0.5
    out_rows = T.inc_subtensor(emb_out[context], -lr * g_o)
    train = theano.function([center, context], [loss, negatives], updates=[
        (emb_in, T.inc_subtensor(emb_in[center], -lr * g_c)),
        (emb_out, T.inc_subtensor(out_rows[negatives], -lr * g_n))])
    words = np.asarray([0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3], dtype="int32")
    centers = words[1:-1]
    contexts = np.asarray([words[i - 1] if i % 2 else words[i + 1]
                           for i in range(1, len(words) - 1)], dtype="int32")
    out = {}
    for epoch in range(3):
        out[f"loss{epoch}"], out[f"negatives{epoch}"] = train(centers, contexts)
    out["emb_in"], out["emb_out"] = emb_in.get_value(), emb_out.get_value()
    sims = T.dot(emb_in, emb_in.T)
    out["nearest"] = theano.function([], T.argsort(sims, axis=1)[:, -2])()
    return out


@program
def metropolis_in_scan(theano: Any) -> dict:
    """Random-walk Metropolis on a 2-d banana density, the chain in ``scan``: the proposal's
    normal noise from RandomStreams and the acceptance's uniform from MRG_RandomStreams, both
    drawn inside the step; the number of steps and the proposal scale are inputs; the chain's
    end stored in a shared variable so that the next call goes on from it."""
    RandomStreams, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    srng, mrg = RandomStreams(seed=5), MRG_RandomStreams(seed=6)
    n_chains = 4
    state = theano.shared(np.zeros((n_chains, 2)), name="state")
    n_steps, scale = T.iscalar("n_steps"), T.dscalar("scale")

    def log_density(x):
        return -0.5 * (T.sqr(x[:, 0]) / 4.0 + T.sqr(x[:, 1] - 0.5 * T.sqr(x[:, 0])))

    def step(x, accepted):
        proposal = x + scale * srng.normal(size=x.shape)
        log_ratio = log_density(proposal) - log_density(x)
        u = mrg.uniform(size=(n_chains,), dtype="float64")
        accept = T.log(u) < log_ratio
        return T.switch(accept.dimshuffle(0, "x"), proposal, x), accepted + accept

    (chain, accepts), updates = theano.scan(
        step, outputs_info=[state, T.zeros((n_chains,), dtype="int64")], n_steps=n_steps)
    updates[state] = chain[-1]
    run = theano.function([n_steps, scale], [chain, accepts[-1]], updates=updates)
    out = {}
    for k, (steps, s) in enumerate(((6, 0.5), (6, 0.5), (4, 2.0))):
        out[f"chain{k}"], out[f"accepted{k}"] = run(steps, s)
    out["state"] = state.get_value()
    out["mean"] = out["chain2"].mean(axis=(0, 1))
    return out


@program
def gan_mrg_noise(theano: Any) -> dict:
    """A small GAN on 1-d data: the generator's input noise from MRG ``uniform(low=-1,
    high=1)`` sized by the batch (symbolic), discriminator and generator trained in turn by two
    functions that share the draw (each call moves the stream on)."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    rng = np.random.RandomState(0)
    srng = MRG_RandomStreams(seed=1)

    def weights(*shape):
        return theano.shared(rng.normal(0, 0.3, shape))

    Gw1, Gb1, Gw2 = weights(2, 8), theano.shared(np.zeros(8)), weights(8, 1)
    Dw1, Db1, Dw2 = weights(1, 8), theano.shared(np.zeros(8)), weights(8, 1)
    x = T.dmatrix("x")
    z = srng.uniform(size=(x.shape[0], 2), low=-1.0, high=1.0, dtype="float64")
    fake = T.dot(T.nnet.relu(T.dot(z, Gw1) + Gb1), Gw2)

    def discriminate(v):
        return T.nnet.sigmoid(T.dot(T.tanh(T.dot(v, Dw1) + Db1), Dw2))

    d_real, d_fake = discriminate(x), discriminate(fake)
    d_loss = -T.mean(T.log(d_real) + T.log(1 - d_fake))
    g_loss = -T.mean(T.log(d_fake))
    d_params, g_params = [Dw1, Db1, Dw2], [Gw1, Gb1, Gw2]
    d_train = theano.function([x], d_loss, updates=[
        (p, p - 0.1 * g) for p, g in zip(d_params, T.grad(d_loss, d_params))])
    g_train = theano.function([x], g_loss, updates=[
        (p, p - 0.1 * g) for p, g in zip(g_params, T.grad(g_loss, g_params))])
    data = rng.normal(3.0, 0.5, (16, 1))
    losses = []
    for _ in range(5):
        losses += [d_train(data), g_train(data)]
    out = {"losses": np.asarray(losses), "samples": theano.function([x], fake)(data[:4])}
    out.update({f"param{i}": p.get_value() for i, p in enumerate(g_params + d_params)})
    return out


@program
def gumbel_softmax_mrg(theano: Any) -> dict:
    """Gumbel-softmax relaxation: Gumbel noise ``-log(-log(u))`` from an MRG uniform draw
    shaped like the logits, the tempered softmax, its straight-through hard one-hot, and the
    gradient of a cost with respect to the logits (through the draw-free path)."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    srng = MRG_RandomStreams(seed=2)
    logits, tau = T.dmatrix("logits"), T.dscalar("tau")
    u = srng.uniform(size=logits.shape, dtype="float64")
    gumbel = -T.log(-T.log(u + 1e-20) + 1e-20)
    y = T.nnet.softmax((logits + gumbel) / tau)
    hard = T.eq(y, y.max(axis=1, keepdims=True))
    W = theano.shared(np.arange(9.0).reshape(3, 3) / 9.0, name="W")
    cost = T.sum(T.dot(y, W) ** 2)
    f = theano.function([logits, tau], [y, hard, T.grad(cost, logits)])
    values = np.log(np.asarray([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]))
    out = {}
    for k, t in enumerate((0.5, 1.0, 0.5)):
        out[f"soft{k}"], out[f"hard{k}"], out[f"grad{k}"] = f(values, t)
    return out


@program
def bayes_by_backprop_mrg(theano: Any) -> dict:
    """Bayes by backprop for a linear model: weights ``mu + log1p(exp(rho)) * eps`` with
    ``eps`` an MRG normal draw per weight, the closed-form KL to a unit Gaussian prior, SGD on
    ``mu`` and ``rho``; then the predictive mean and spread from several weight draws."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    rng = np.random.RandomState(3)
    srng = MRG_RandomStreams(seed=3)
    mu = theano.shared(rng.normal(0, 0.1, (3, 2)), name="mu")
    rho = theano.shared(np.full((3, 2), -3.0), name="rho")
    x, y = T.dmatrix("x"), T.dmatrix("y")
    sigma = T.log1p(T.exp(rho))
    W = mu + sigma * srng.normal(size=(3, 2), dtype="float64")
    nll = T.mean(T.sqr(T.dot(x, W) - y))
    kl = T.sum(T.log(1.0 / sigma) + (T.sqr(sigma) + T.sqr(mu)) / 2 - 0.5)
    cost = nll + kl / 100.0
    params = [mu, rho]
    train = theano.function([x, y], [cost, nll], updates=[
        (p, p - 0.05 * g) for p, g in zip(params, T.grad(cost, params))])
    xv = rng.normal(size=(10, 3))
    yv = xv.dot(np.asarray([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]))
    out = {"train": np.asarray([train(xv, yv) for _ in range(6)])}
    predict = theano.function([x], T.dot(x, W))
    draws = np.asarray([predict(xv[:3]) for _ in range(5)])
    out["pred_mean"], out["pred_std"] = draws.mean(axis=0), draws.std(axis=0)
    out["mu"], out["rho"] = mu.get_value(), rho.get_value()
    return out
