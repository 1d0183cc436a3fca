"""Record what Theano 1.0.5 draws from negative ``MRG_RandomStreams`` seeds (and six-integer
seeds with negative words), for ``test_negative_seeds.py``.

Theano bounds a seed from above only, so a negative seed gives states outside MRG31k3p's range,
which its C code steps in wrapping int32 arithmetic: the numbers are not MRG31k3p's, but they
are what a Theano program with such a seed drew. Run under the oracle (CI never has Theano):

    THEANO_FLAGS=blas.ldflags= ../shared/tools/theano-oracle tests/random/record_negative_seeds.py

Writes ``theano_negative_seeds.json`` (the cases, the streams object's states, the step helpers'
results, the seed errors) and ``theano_negative_seeds.npz`` (the draws) next to this file.
Cases whose draws are large keep a SHA-256 digest of their bytes instead.
"""
import hashlib
import json
import os
import sys

import numpy as np
import theano
import theano.tensor as T
from theano.sandbox import rng_mrg
from theano.sandbox.rng_mrg import MRG_RandomStreams

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = [-5, -1, -2**31, -2**31 - 5, [-1, -2, -3, 4, 5, 6], [1, 2, 3, -4, -5, -6],
         [1, -2, 3, -4, 5, -6], [-2**31, 5, -7, 0, -1, 2147462578],
         [2147483646, -2**31, 1, 2147462578, -2**31, -1]]
#: cases with more values than this keep a digest
LARGE = 4000
cases, arrays = [], {}


def digest(a):
    a = np.ascontiguousarray(a)
    return hashlib.sha256(a.tobytes()).hexdigest()


def record(seed, floatX, method, kwargs, build, calls=2, reseed=None):
    with theano.change_flags(floatX=floatX):
        srng = MRG_RandomStreams(seed)
        out, inputs, values = build(srng)
        f = theano.function(inputs, out)
        draws = [np.asarray(f(*values)) for _ in range(calls)]
        if reseed is not None:
            srng.seed(reseed)
            draws += [np.asarray(f(*values)) for _ in range(2)]
        states = [np.asarray(old.get_value()) for old, _, _, _ in srng.state_updates]
    i = len(cases)
    case = {'id': i, 'seed': seed, 'floatX': floatX, 'method': method, 'kwargs': kwargs,
            'draws': len(draws), 'reseed_after': calls if reseed is not None else None,
            'reseed_to': reseed, 'dtype': str(draws[0].dtype), 'shape': list(draws[0].shape),
            'rstate_after': [int(v) for v in srng.rstate],
            'state_digests': [digest(s) for s in states]}
    if draws[0].size > LARGE:
        case['digests'] = [digest(d) for d in draws]
        case['heads'] = [d.reshape(-1)[:8].tolist() for d in draws]
    else:
        for j, d in enumerate(draws):
            arrays[f'case{i}_draw{j}'] = d
    cases.append(case)


def plain(method, **kw):
    return lambda srng: (getattr(srng, method)(**kw), [], [])


def symbolic(fx):
    def build(srng):
        x = T.matrix('x')
        return srng.uniform(size=x.shape), [x], [np.zeros((3, 4), dtype=fx)]
    return build


for fx in ('float64', 'float32'):
    for seed in SEEDS:
        record(seed, fx, 'uniform', {'size': [7, 3]}, plain('uniform', size=(7, 3)))
        record(seed, fx, 'uniform', {'size': [20], 'nstreams': 3},
               plain('uniform', size=(20,), nstreams=3))
        record(seed, fx, 'uniform', {'size': [5, 4], 'low': -2.0, 'high': 3.0},
               plain('uniform', size=(5, 4), low=-2.0, high=3.0))
        record(seed, fx, 'normal', {'size': [9]}, plain('normal', size=(9,)))
        record(seed, fx, 'normal', {'size': [4, 6], 'avg': 1.0, 'std': 2.0},
               plain('normal', size=(4, 6), avg=1.0, std=2.0))
        record(seed, fx, 'binomial', {'size': [30], 'p': 0.3},
               plain('binomial', size=(30,), p=0.3))
        pv = np.asarray([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=fx)
        record(seed, fx, 'multinomial', {'pvals': pv.tolist()}, plain('multinomial', pvals=pv))
        pv4 = np.asarray([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], dtype=fx)
        record(seed, fx, 'choice', {'size': 2, 'p': pv4.tolist(), 'replace': False},
               plain('choice', size=2, p=pv4, replace=False))
        record(seed, fx, 'uniform', {'size': 'x.shape of a (3, 4) input'}, symbolic(fx))
    # every stream of a large state matrix (the chain of jumps, then the doubling)
    for seed in (-5, [1, -2, 3, -4, 5, -6], [-2**31, 5, -7, 0, -1, 2147462578]):
        record(seed, fx, 'uniform', {'size': [15360], 'nstreams': 15360},
               plain('uniform', size=(15360,), nstreams=15360))
        record(seed, fx, 'uniform', {'size': [1000, 60]}, plain('uniform', size=(1000, 60)))
    record(12345, fx, 'uniform', {'size': [8]}, plain('uniform', size=(8,)), reseed=-7)
    record(-5, fx, 'uniform', {'size': [8]}, plain('uniform', size=(8,)),
           reseed=[1, -2, 3, 4, -5, 6])

# the step helpers of rng_mrg on states with negative words
rng = np.random.RandomState(16)
helpers = []
for _ in range(12):
    s = rng.randint(-2**31, 2**31, size=6).astype(np.int32)
    new = np.zeros(6, np.int32)
    with np.errstate(all='ignore'):
        value = rng_mrg.mrg_next_value(s.copy(), new, np.float64(2.0**-31), -1, 0)
    helpers.append({'state': s.tolist(), 'ff_2p134': rng_mrg.ff_2p134(s).tolist(),
                    'ff_2p72': rng_mrg.ff_2p72(s).tolist(),
                    'multMatVect': rng_mrg.multMatVect(s, rng_mrg.A1p72, rng_mrg.M1,
                                                       rng_mrg.A2p72, rng_mrg.M2).tolist(),
                    'matVecModM': rng_mrg.matVecModM(rng_mrg.A1p72, s[:3], rng_mrg.M1).tolist(),
                    'next_state': new.tolist(), 'next_value': float(value)})

# which seeds the constructor takes (the state it starts from) and which it refuses
seed_forms = []
for seed in [-5, True, -2**31 - 1, -2**40, [1.5, 2.7, 3, 4, 5, 6], [True, False, False, 1, 0, 0],
             [-2**31 - 1, 1, 1, 1, 1, 1], [-1, 0, 0, -1, 0, 0], [0, 0, -1, 0, 0, 0],
             [0, 0, 0, 2147462579, 1, 1], [2147483647, 0, 0, 0, 0, 0],
             [2147483647, 1, 1, 2147462579, 1, 1], [1, 1, 1, 2147462579, 0, 0], 0, False,
             2147462579, 2**32, [1, 2, 3], [1, 2, 3, 4, 5, 6, 7]]:
    try:
        state = MRG_RandomStreams(seed).rstate.tolist()
        seed_forms.append({'seed': seed, 'state': state})
    except Exception as e:  # noqa: BLE001 - the error is what is recorded
        seed_forms.append({'seed': seed, 'error': type(e).__name__,
                           'message': str(e.args[0])})

np.savez_compressed(os.path.join(HERE, 'theano_negative_seeds.npz'), **arrays)
with open(os.path.join(HERE, 'theano_negative_seeds.json'), 'w') as f:
    json.dump({'made_with': f'Theano {theano.__version__}, NumPy {np.__version__}',
               'cases': cases, 'helpers': helpers, 'seed_forms': seed_forms}, f, indent=1)
print(len(cases), 'cases,', len(arrays), 'arrays', file=sys.stderr)
