"""Programs that draw random numbers inside ``scan`` (or around it), as Theano users wrote them:
the loop tutorial's binomial noise, an RBM trained by contrastive divergence (CD-k and the
persistent variant) with its Gibbs chain in ``scan``, dropout masks drawn by MRG inside an LSTM
step, a Hamiltonian Monte Carlo sampler (leapfrog in ``scan``) and a stack of denoising
autoencoders pre-trained layer-wise then fine-tuned. All float64, small sizes.

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
    return theano.tensor.shared_randomstreams.RandomStreams, theano.sandbox.rng_mrg.MRG_RandomStreams


@program
def tutorial_loop_binomial_noise(theano: Any) -> dict:
    """The loop tutorial's "computing tanh(v.dot(W) + b) * d where d is binomial": ``d`` drawn
    from RandomStreams outside the step, used inside it, scan's updates given to function."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    X, W, b_sym = T.matrix("X"), T.matrix("W"), T.vector("b_sym")
    trng = RandomStreams(1234)
    d = trng.binomial(size=W[1].shape)
    results, updates = theano.scan(lambda v: T.tanh(T.dot(v, W) + b_sym) * d, sequences=X)
    compute_with_bnoise = theano.function(inputs=[X, W, b_sym], outputs=results,
                                          updates=updates, allow_input_downcast=True)
    x = np.eye(10, 2, dtype=theano.config.floatX)
    w = np.ones((2, 2), dtype=theano.config.floatX)
    b = np.ones((2), dtype=theano.config.floatX)
    return {"call0": compute_with_bnoise(x, w, b), "call1": compute_with_bnoise(x, w, b)}


@program
def scan_draws_each_step(theano: Any) -> dict:
    """Draws made inside the step (RandomStreams and MRG): new numbers at every step and every
    call; a chain whose noise depends on the previous state."""
    RandomStreams, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    srng, mrg = RandomStreams(99), MRG_RandomStreams(314)

    def step(prev):
        noise = srng.normal(size=(3,), avg=0.0, std=0.1)
        jump = mrg.uniform(size=(3,), low=-1.0, high=1.0, dtype="float64")
        return prev + noise * jump

    x0 = T.dvector("x0")
    chain, updates = theano.scan(step, outputs_info=[x0], n_steps=4)
    walk = theano.function([x0], chain, updates=updates)
    start = np.asarray([0.0, 1.0, 2.0])
    return {"walk0": walk(start), "walk1": walk(start)}


class _RBM:
    """The deep-learning tutorial's restricted Boltzmann machine (binary units)."""

    def __init__(self, theano: Any, input: Any, n_visible: int, n_hidden: int,
                 numpy_rng: np.random.RandomState, theano_rng: Any) -> None:
        T = self.T = theano.tensor
        self.theano = theano
        self.input, self.n_visible, self.theano_rng = input, n_visible, theano_rng
        bound = 4 * np.sqrt(6.0 / (n_hidden + n_visible))
        self.W = theano.shared(numpy_rng.uniform(-bound, bound, (n_visible, n_hidden)), name="W")
        self.hbias = theano.shared(np.zeros(n_hidden), name="hbias")
        self.vbias = theano.shared(np.zeros(n_visible), name="vbias")
        self.params = [self.W, self.hbias, self.vbias]

    def free_energy(self, v_sample: Any) -> Any:
        wx_b = self.T.dot(v_sample, self.W) + self.hbias
        return -self.T.sum(self.T.log(1 + self.T.exp(wx_b)), axis=1) - self.T.dot(v_sample,
                                                                                   self.vbias)

    def sample_h_given_v(self, v0: Any) -> list:
        pre = self.T.dot(v0, self.W) + self.hbias
        mean = self.T.nnet.sigmoid(pre)
        sample = self.theano_rng.binomial(size=mean.shape, n=1, p=mean,
                                          dtype=self.theano.config.floatX)
        return [pre, mean, sample]

    def sample_v_given_h(self, h0: Any) -> list:
        pre = self.T.dot(h0, self.W.T) + self.vbias
        mean = self.T.nnet.sigmoid(pre)
        sample = self.theano_rng.binomial(size=mean.shape, n=1, p=mean,
                                          dtype=self.theano.config.floatX)
        return [pre, mean, sample]

    def gibbs_hvh(self, h0_sample: Any) -> list:
        v_pre, v_mean, v_sample = self.sample_v_given_h(h0_sample)
        h_pre, h_mean, h_sample = self.sample_h_given_v(v_sample)
        return [v_pre, v_mean, v_sample, h_pre, h_mean, h_sample]

    def gibbs_vhv(self, v0_sample: Any) -> list:
        h_pre, h_mean, h_sample = self.sample_h_given_v(v0_sample)
        v_pre, v_mean, v_sample = self.sample_v_given_h(h_sample)
        return [h_pre, h_mean, h_sample, v_pre, v_mean, v_sample]

    def get_cost_updates(self, lr: float, persistent: Any = None, k: int = 1) -> tuple:
        T = self.T
        _, _, ph_sample = self.sample_h_given_v(self.input)
        chain_start = ph_sample if persistent is None else persistent
        (pre_nvs, _, nv_samples, _, _, nh_samples), updates = self.theano.scan(
            self.gibbs_hvh, outputs_info=[None, None, None, None, None, chain_start], n_steps=k,
            name="gibbs_hvh")
        chain_end = nv_samples[-1]
        cost = T.mean(self.free_energy(self.input)) - T.mean(self.free_energy(chain_end))
        gparams = T.grad(cost, self.params, consider_constant=[chain_end])
        for gparam, param in zip(gparams, self.params):
            updates[param] = param - gparam * T.cast(lr, dtype=self.theano.config.floatX)
        if persistent is not None:
            updates[persistent] = nh_samples[-1]
            return self._pseudo_likelihood_cost(updates), updates
        return self._reconstruction_cost(pre_nvs[-1]), updates

    def _pseudo_likelihood_cost(self, updates: Any) -> Any:
        T = self.T
        bit_i_idx = self.theano.shared(value=0, name="bit_i_idx")
        xi = T.round(self.input)
        fe_xi = self.free_energy(xi)
        xi_flip = T.set_subtensor(xi[:, bit_i_idx], 1 - xi[:, bit_i_idx])
        fe_xi_flip = self.free_energy(xi_flip)
        updates[bit_i_idx] = (bit_i_idx + 1) % self.n_visible
        return T.mean(self.n_visible * T.log(T.nnet.sigmoid(fe_xi_flip - fe_xi)))

    def _reconstruction_cost(self, pre_sigmoid_nv: Any) -> Any:
        T = self.T
        p = T.nnet.sigmoid(pre_sigmoid_nv)
        return T.mean(T.sum(self.input * T.log(p) + (1 - self.input) * T.log(1 - p), axis=1))


def _rbm_training(theano: Any, persistent: bool, k: int) -> dict:
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    numpy_rng = np.random.RandomState(123)
    theano_rng = RandomStreams(numpy_rng.randint(2 ** 30))
    n_visible, n_hidden, batch_size = 8, 5, 4
    data = (numpy_rng.rand(12, n_visible) > 0.5).astype(theano.config.floatX)
    train_set_x = theano.shared(data, borrow=True)
    index, x = T.lscalar(), T.matrix("x")
    rbm = _RBM(theano, x, n_visible, n_hidden, numpy_rng, theano_rng)
    chain = (theano.shared(np.zeros((batch_size, n_hidden)), borrow=True) if persistent
             else None)
    cost, updates = rbm.get_cost_updates(lr=0.1, persistent=chain, k=k)
    train_rbm = theano.function([index], cost, updates=updates, givens={
        x: train_set_x[index * batch_size:(index + 1) * batch_size]})
    costs = [train_rbm(i) for _ in range(2) for i in range(3)]
    out = {"costs": np.asarray(costs), "W": rbm.W.get_value(), "hbias": rbm.hbias.get_value(),
           "vbias": rbm.vbias.get_value()}
    if chain is not None:
        out["chain"] = chain.get_value()
    return out, rbm, train_set_x


@program
def rbm_cd1(theano: Any) -> dict:
    """CD-1 training of the tutorial's RBM (Gibbs chain of one step in scan)."""
    return _rbm_training(theano, persistent=False, k=1)[0]


@program
def rbm_cd3(theano: Any) -> dict:
    """CD-3: three Gibbs steps in scan per update."""
    return _rbm_training(theano, persistent=False, k=3)[0]


@program
def rbm_pcd_and_sampling(theano: Any) -> dict:
    """Persistent CD-2 (the chain's end stored in a shared variable, pseudo-likelihood cost),
    then the tutorial's sampling from a persistent visible chain (gibbs_vhv in scan)."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    out, rbm, train_set_x = _rbm_training(theano, persistent=True, k=2)
    persistent_vis_chain = theano.shared(train_set_x.get_value()[:3], borrow=True)
    (_, _, _, _, vis_mfs, vis_samples), updates = theano.scan(
        rbm.gibbs_vhv, outputs_info=[None, None, None, None, None, persistent_vis_chain],
        n_steps=5, name="gibbs_vhv")
    updates.update({persistent_vis_chain: vis_samples[-1]})
    sample_fn = theano.function([], [vis_mfs[-1], vis_samples[-1]], updates=updates,
                                name="sample_fn")
    for i in range(2):
        out[f"mf{i}"], out[f"sample{i}"] = sample_fn()
    return out


@program
def lstm_dropout_mrg(theano: Any) -> dict:
    """An LSTM whose step multiplies its hidden state by a dropout mask drawn from
    MRG_RandomStreams inside the step, trained a few SGD steps with the gradient through scan."""
    _, MRG_RandomStreams = _streams(theano)
    T = theano.tensor
    floatX = theano.config.floatX
    rng = np.random.RandomState(42)
    n_in, n_hid, n_steps, batch = 3, 4, 5, 2
    W = theano.shared(rng.randn(n_in, 4 * n_hid) * 0.3, name="W")
    U = theano.shared(rng.randn(n_hid, 4 * n_hid) * 0.3, name="U")
    b = theano.shared(np.zeros(4 * n_hid), name="b")
    V = theano.shared(rng.randn(n_hid) * 0.3, name="V")
    trng = MRG_RandomStreams(1234)
    x, y = T.tensor3("x"), T.vector("y")

    def _slice(m, n):
        return m[:, n * n_hid:(n + 1) * n_hid]

    def step(x_t, h_prev, c_prev):
        preact = T.dot(x_t, W) + T.dot(h_prev, U) + b
        i = T.nnet.sigmoid(_slice(preact, 0))
        f = T.nnet.sigmoid(_slice(preact, 1))
        o = T.nnet.sigmoid(_slice(preact, 2))
        c = f * c_prev + i * T.tanh(_slice(preact, 3))
        h = o * T.tanh(c)
        mask = trng.binomial(size=h.shape, p=0.8, n=1, dtype=floatX)
        return h * mask / 0.8, c

    h0 = T.alloc(np.asarray(0.0, dtype=floatX), x.shape[1], n_hid)
    (hs, cs), scan_updates = theano.scan(step, sequences=x, outputs_info=[h0, h0],
                                         name="lstm_layer")
    p = T.nnet.sigmoid(T.dot(hs[-1], V))
    cost = T.nnet.binary_crossentropy(p, y).mean()
    params = [W, U, b, V]
    grads = T.grad(cost, params)
    updates = list(scan_updates.items()) + [(q, q - 0.5 * g) for q, g in zip(params, grads)]
    train = theano.function([x, y], [cost, hs], updates=updates)
    data = rng.randn(n_steps, batch, n_in)
    target = np.asarray([0.0, 1.0])
    out = {}
    for k in range(3):
        out[f"cost{k}"], out[f"hs{k}"] = train(data, target)
    out.update({q.name: q.get_value() for q in params})
    return out


def _hmc_sampler(theano: Any, shared_positions: Any, energy_fn: Callable, seed: int) -> Any:
    """The deep-learning tutorial's HMC_sampler: leapfrog steps in scan, a normal velocity
    draw, a Metropolis accept with a uniform draw, and an adaptive step size."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    floatX = theano.config.floatX
    initial_stepsize, target_rate, n_steps = 0.01, 0.9, 20
    stepsize_dec, stepsize_min, stepsize_max, stepsize_inc, slowness = 0.98, 0.001, 0.25, 1.02, 0.9
    stepsize = theano.shared(np.asarray(initial_stepsize, dtype=floatX), "hmc_stepsize")
    avg_rate = theano.shared(np.asarray(target_rate, dtype=floatX), "avg_acceptance_rate")
    s_rng = RandomStreams(seed)

    def kinetic_energy(vel):
        return 0.5 * (vel ** 2).sum(axis=1)

    def hamiltonian(pos, vel):
        return energy_fn(pos) + kinetic_energy(vel)

    def leapfrog(pos, vel, step):
        dE_dpos = T.grad(energy_fn(pos).sum(), pos)
        new_vel = vel - step * dE_dpos
        return [pos + step * new_vel, new_vel], {}

    positions = shared_positions
    initial_vel = s_rng.normal(size=positions.shape)
    dE_dpos = T.grad(energy_fn(positions).sum(), positions)
    vel_half_step = initial_vel - 0.5 * stepsize * dE_dpos
    pos_full_step = positions + stepsize * vel_half_step
    (all_pos, all_vel), scan_updates = theano.scan(
        leapfrog, outputs_info=[dict(initial=pos_full_step), dict(initial=vel_half_step)],
        non_sequences=[stepsize], n_steps=n_steps - 1)
    assert not scan_updates
    final_pos = all_pos[-1]
    final_vel = all_vel[-1] - 0.5 * stepsize * T.grad(energy_fn(final_pos).sum(), final_pos)
    ediff = hamiltonian(positions, initial_vel) - hamiltonian(final_pos, final_vel)
    accept = (T.exp(ediff) - s_rng.uniform(size=positions.shape[:1])) >= 0
    new_positions = T.switch(accept.dimshuffle(0, "x"), final_pos, positions)
    new_stepsize = T.clip(T.switch(avg_rate > target_rate, stepsize * stepsize_inc,
                                   stepsize * stepsize_dec), stepsize_min, stepsize_max)
    mean_dtype = theano.scalar.upcast(accept.dtype, avg_rate.dtype)
    new_rate = T.add(slowness * avg_rate, (1.0 - slowness) * accept.mean(dtype=mean_dtype))
    simulate = theano.function([], [], name="hmc_simulate", updates=[
        (positions, new_positions), (stepsize, new_stepsize), (avg_rate, new_rate)])
    return simulate, stepsize, avg_rate


@program
def hmc_gaussian(theano: Any) -> dict:
    """The tutorial's test: sampling a correlated 3-d Gaussian with HMC (a few draws)."""
    T = theano.tensor
    rng = np.random.RandomState(123)
    dim, batchsize = 3, 4
    mu = np.asarray(rng.rand(dim) * 10, dtype=theano.config.floatX)
    cov = np.asarray(rng.rand(dim, dim), dtype=theano.config.floatX)
    cov = (cov + cov.T) / 2.0
    cov[np.arange(dim), np.arange(dim)] = 1.0
    cov_inv = np.linalg.inv(cov)

    def gaussian_energy(x):
        return 0.5 * (T.dot((x - mu), cov_inv) * (x - mu)).sum(axis=1)

    position = theano.shared(rng.randn(batchsize, dim).astype(theano.config.floatX))
    simulate, stepsize, avg_rate = _hmc_sampler(theano, position, gaussian_energy, seed=12345)
    out = {}
    for i in range(6):
        simulate()
        out[f"pos{i}"] = position.get_value(borrow=False)
    out["stepsize"], out["avg_acceptance_rate"] = stepsize.get_value(), avg_rate.get_value()
    return out


class _DA:
    """A denoising autoencoder layer (tied weights, binomial corruption from RandomStreams)."""

    def __init__(self, theano: Any, numpy_rng: Any, theano_rng: Any, input: Any, n_visible: int,
                 n_hidden: int, W: Any, bhid: Any) -> None:
        self.T, self.theano_rng, self.x = theano.tensor, theano_rng, input
        self.W, self.b = W, bhid
        self.b_prime = theano.shared(np.zeros(n_visible), name="b_prime")
        self.params = [self.W, self.b, self.b_prime]
        self.floatX = theano.config.floatX

    def get_cost_updates(self, corruption_level: Any, learning_rate: Any) -> tuple:
        T = self.T
        tilde_x = self.theano_rng.binomial(size=self.x.shape, n=1, p=1 - corruption_level,
                                           dtype=self.floatX) * self.x
        y = T.nnet.sigmoid(T.dot(tilde_x, self.W) + self.b)
        z = T.nnet.sigmoid(T.dot(y, self.W.T) + self.b_prime)
        cost = T.mean(-T.sum(self.x * T.log(z) + (1 - self.x) * T.log(1 - z), axis=1))
        gparams = T.grad(cost, self.params)
        return cost, [(p, p - learning_rate * g) for p, g in zip(self.params, gparams)]


@program
def stacked_denoising_autoencoders(theano: Any) -> dict:
    """The SdA tutorial at toy size: sigmoid layers whose weights are shared with dA layers,
    pre-trained layer by layer (corruption level and learning rate as inputs), then fine-tuned
    with a logistic regression on top."""
    RandomStreams, _ = _streams(theano)
    T = theano.tensor
    numpy_rng = np.random.RandomState(89677)
    theano_rng = RandomStreams(numpy_rng.randint(2 ** 30))
    n_ins, hidden_sizes, n_outs, batch_size = 10, [7, 5], 3, 5
    data_x = (numpy_rng.rand(15, n_ins) > 0.4).astype(theano.config.floatX)
    data_y = numpy_rng.randint(0, n_outs, 15).astype("int32")
    train_x, train_y = theano.shared(data_x, borrow=True), theano.shared(data_y, borrow=True)
    x, y, index = T.matrix("x"), T.ivector("y"), T.lscalar("index")
    corruption_level, learning_rate = T.scalar("corruption"), T.scalar("lr")
    layer_input, n_in, sigmoid_params, dA_layers = x, n_ins, [], []
    for n_out in hidden_sizes:
        bound = 4 * np.sqrt(6.0 / (n_in + n_out))
        W = theano.shared(numpy_rng.uniform(-bound, bound, (n_in, n_out)), name="W")
        b = theano.shared(np.zeros(n_out), name="b")
        dA_layers.append(_DA(theano, numpy_rng, theano_rng, layer_input, n_in, n_out, W, b))
        layer_input = T.nnet.sigmoid(T.dot(layer_input, W) + b)
        sigmoid_params += [W, b]
        n_in = n_out
    W_log = theano.shared(np.zeros((n_in, n_outs)), name="W_log")
    b_log = theano.shared(np.zeros(n_outs), name="b_log")
    p_y = T.nnet.softmax(T.dot(layer_input, W_log) + b_log)
    finetune_cost = -T.mean(T.log(p_y)[T.arange(y.shape[0]), y])
    errors = T.mean(T.neq(T.argmax(p_y, axis=1), y))
    batch = slice(index * batch_size, (index + 1) * batch_size)
    out = {}
    for i, dA in enumerate(dA_layers):
        cost, updates = dA.get_cost_updates(corruption_level, learning_rate)
        pretrain = theano.function([index, theano.In(corruption_level, value=0.2),
                                    theano.In(learning_rate, value=0.1)], cost,
                                   updates=updates, givens={x: train_x[batch]})
        out[f"pretrain{i}"] = np.asarray([pretrain(j, corruption=[0.1, 0.2][i], lr=0.1)
                                          for _ in range(2) for j in range(3)])
    params = sigmoid_params + [W_log, b_log]
    gparams = T.grad(finetune_cost, params)
    train_fn = theano.function([index], finetune_cost, name="train", givens={
        x: train_x[batch], y: train_y[batch]},
        updates=[(p, p - 0.1 * g) for p, g in zip(params, gparams)])
    test_fn = theano.function([index], errors, givens={x: train_x[batch], y: train_y[batch]})
    out["finetune"] = np.asarray([train_fn(j) for _ in range(3) for j in range(3)])
    out["errors"] = np.asarray([test_fn(j) for j in range(3)])
    out.update({f"param{i}": p.get_value() for i, p in enumerate(params)})
    return out
