"""The deeplearning.net Hybrid Monte Carlo tutorial (hmc/hmc.py and test_hmc.py) as its users
ran it, at toy size: leapfrog integration in ``scan`` (``dict(initial=...)`` outputs, the
gradient of the energy taken inside the step), velocities and the Metropolis-Hastings test
drawn from ``TT.shared_randomstreams.RandomStreams``, the accepted positions chosen by
``switch`` on a dimshuffled acceptance vector, an adaptive step size clipped between bounds,
the acceptance rate averaged with ``accept.mean(dtype=theano.scalar.upcast(...))``, all as the
updates of a function with no inputs or outputs that ``HMC_sampler.draw`` calls. Sampled: a
correlated 5-d Gaussian, as in test_hmc.py. (tests/random/random_scan_programs.py has a
float64 HMC of its own.)

    python hmc.py                   # with Theano
"""

from __future__ import print_function

import numpy

import theano
from theano import function, shared
from theano import tensor as TT


def sharedX(value, name):
    return shared(numpy.asarray(value, dtype=theano.config.floatX), name=name)


def kinetic_energy(vel):
    return 0.5 * (vel ** 2).sum(axis=1)


def hamiltonian(pos, vel, energy_fn):
    return energy_fn(pos) + kinetic_energy(vel)


def metropolis_hastings_accept(energy_prev, energy_next, s_rng):
    ediff = energy_prev - energy_next
    return (TT.exp(ediff) - s_rng.uniform(size=energy_prev.shape)) >= 0


def simulate_dynamics(initial_pos, initial_vel, stepsize, n_steps, energy_fn):
    """``n_steps`` leapfrog steps from (``initial_pos``, ``initial_vel``)."""

    def leapfrog(pos, vel, step):
        dE_dpos = TT.grad(energy_fn(pos).sum(), pos)
        new_vel = vel - step * dE_dpos
        new_pos = pos + step * new_vel
        return [new_pos, new_vel], {}

    initial_energy = energy_fn(initial_pos)
    dE_dpos = TT.grad(initial_energy.sum(), initial_pos)
    vel_half_step = initial_vel - 0.5 * stepsize * dE_dpos
    pos_full_step = initial_pos + stepsize * vel_half_step
    (all_pos, all_vel), scan_updates = theano.scan(
        leapfrog, outputs_info=[dict(initial=pos_full_step), dict(initial=vel_half_step)],
        non_sequences=[stepsize], n_steps=n_steps - 1)
    final_pos = all_pos[-1]
    final_vel = all_vel[-1]
    assert not scan_updates
    energy = energy_fn(final_pos)
    final_vel = final_vel - 0.5 * stepsize * TT.grad(energy.sum(), final_pos)
    return final_pos, final_vel


def hmc_move(s_rng, positions, energy_fn, stepsize, n_steps):
    initial_vel = s_rng.normal(size=positions.shape)
    final_pos, final_vel = simulate_dynamics(initial_pos=positions, initial_vel=initial_vel,
                                             stepsize=stepsize, n_steps=n_steps,
                                             energy_fn=energy_fn)
    accept = metropolis_hastings_accept(
        energy_prev=hamiltonian(positions, initial_vel, energy_fn),
        energy_next=hamiltonian(final_pos, final_vel, energy_fn), s_rng=s_rng)
    return accept, final_pos


def hmc_updates(positions, stepsize, avg_acceptance_rate, final_pos, accept,
                target_acceptance_rate, stepsize_inc, stepsize_dec, stepsize_min, stepsize_max,
                avg_acceptance_slowness):
    accept_matrix = accept.dimshuffle(0, *(('x',) * (final_pos.ndim - 1)))
    new_positions = TT.switch(accept_matrix, final_pos, positions)
    _new_stepsize = TT.switch(avg_acceptance_rate > target_acceptance_rate,
                              stepsize * stepsize_inc, stepsize * stepsize_dec)
    new_stepsize = TT.clip(_new_stepsize, stepsize_min, stepsize_max)
    mean_dtype = theano.scalar.upcast(accept.dtype, avg_acceptance_rate.dtype)
    new_acceptance_rate = TT.add(
        avg_acceptance_slowness * avg_acceptance_rate,
        (1.0 - avg_acceptance_slowness) * accept.mean(dtype=mean_dtype))
    return [(positions, new_positions), (stepsize, new_stepsize),
            (avg_acceptance_rate, new_acceptance_rate)]


class HMC_sampler(object):
    """Draws with ``draw()``; the chains' positions live in a shared variable."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    @classmethod
    def new_from_shared_positions(cls, shared_positions, energy_fn, initial_stepsize=0.01,
                                  target_acceptance_rate=.9, n_steps=20, stepsize_dec=0.98,
                                  stepsize_min=0.001, stepsize_max=0.25, stepsize_inc=1.02,
                                  avg_acceptance_slowness=0.9, seed=12345):
        stepsize = sharedX(initial_stepsize, 'hmc_stepsize')
        avg_acceptance_rate = sharedX(target_acceptance_rate, 'avg_acceptance_rate')
        s_rng = TT.shared_randomstreams.RandomStreams(seed)
        accept, final_pos = hmc_move(s_rng, shared_positions, energy_fn, stepsize, n_steps)
        simulate_updates = hmc_updates(
            shared_positions, stepsize, avg_acceptance_rate, final_pos=final_pos,
            accept=accept, stepsize_min=stepsize_min, stepsize_max=stepsize_max,
            stepsize_inc=stepsize_inc, stepsize_dec=stepsize_dec,
            target_acceptance_rate=target_acceptance_rate,
            avg_acceptance_slowness=avg_acceptance_slowness)
        simulate = function([], [], updates=simulate_updates)
        return cls(positions=shared_positions, stepsize=stepsize, stepsize_min=stepsize_min,
                   stepsize_max=stepsize_max, avg_acceptance_rate=avg_acceptance_rate,
                   target_acceptance_rate=target_acceptance_rate, s_rng=s_rng,
                   _updates=simulate_updates, simulate=simulate)

    def draw(self, **kwargs):
        self.simulate()
        return self.positions.get_value(borrow=False)


def sampler_on_nd_gaussian(sampler_cls, burnin, n_samples, dim=10):
    batchsize = 3
    rng = numpy.random.RandomState(123)
    mu = numpy.array(rng.rand(dim) * 10, dtype=theano.config.floatX)
    cov = numpy.array(rng.rand(dim, dim), dtype=theano.config.floatX)
    cov = (cov + cov.T) / 2.
    cov[numpy.arange(dim), numpy.arange(dim)] = 1.0
    cov_inv = numpy.linalg.inv(cov)

    def gaussian_energy(x):
        return 0.5 * (theano.tensor.dot((x - mu), cov_inv) * (x - mu)).sum(axis=1)

    position = rng.randn(batchsize, dim).astype(theano.config.floatX)
    position = theano.shared(position)
    sampler = sampler_cls(position, gaussian_energy, initial_stepsize=1e-3, stepsize_max=0.5)
    garbage = [sampler.draw() for r in range(burnin)]
    _samples = numpy.asarray([sampler.draw() for r in range(n_samples)])
    samples = _samples.T.reshape(dim, -1).T
    print('****** TARGET VALUES ******')
    print('target mean:', mu)
    print('****** EMPIRICAL MEAN/COV USING HMC ******')
    print('empirical mean: ', samples.mean(axis=0))
    print('final stepsize', sampler.stepsize.get_value())
    print('final acceptance_rate', sampler.avg_acceptance_rate.get_value())
    return sampler, garbage, _samples


def test_hmc():
    sampler, burnin, samples = sampler_on_nd_gaussian(
        HMC_sampler.new_from_shared_positions, burnin=6, n_samples=6, dim=5)
    return {'burnin': numpy.asarray(burnin).tolist(), 'samples': samples.tolist(),
            'stepsize': float(sampler.stepsize.get_value()),
            'avg_acceptance_rate': float(sampler.avg_acceptance_rate.get_value()),
            'dtypes': [str(samples.dtype), str(sampler.stepsize.get_value().dtype),
                       str(sampler.avg_acceptance_rate.get_value().dtype)]}


def main():
    return test_hmc()


if __name__ == '__main__':
    main()
