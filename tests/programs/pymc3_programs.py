"""PyMC3 3.8 (written for Theano 1.0) on a tiny model: a normal mean with a half-normal scale
and 20 observations. Cases: the model's log-density and gradient at a point, ``find_MAP``,
30 NUTS draws and 20 Metropolis draws, seeded. See
:mod:`library_harness` for running and recording.

PyMC3 3.8 predates NumPy 2, Python 3.11 and the ArviZ releases that install next to them: the
shims below (``np.asscalar``, ``inspect.getargspec``, ``numpy.testing.Tester``, two ArviZ
functions that PyMC3 only wraps) touch none of what the cases compute.
"""

import collections
import inspect

from library_harness import main, setup

setup()

import numpy as np  # noqa: E402
import numpy.testing  # noqa: E402

if not hasattr(np, "asscalar"):
    np.asscalar = lambda a: a.item()
for _name, _builtin in (("float", float), ("int", int), ("bool", bool), ("complex", complex),
                        ("object", object)):
    if _name not in np.__dict__:
        setattr(np, _name, _builtin)
if not hasattr(inspect, "getargspec"):
    _ArgSpec = collections.namedtuple("ArgSpec", "args varargs keywords defaults")
    inspect.getargspec = lambda f: _ArgSpec(*inspect.getfullargspec(f)[:4])
if not hasattr(numpy.testing, "Tester"):  # pymc3.tests imports it
    numpy.testing.Tester = type("Tester", (), {"__init__": lambda self, *a, **k: None,
                                               "test": lambda self, *a, **k: None})

import arviz  # noqa: E402

for _name in ("geweke", "hpd"):  # wrapped at import by pymc3.stats; removed from ArviZ since
    if not hasattr(arviz, _name):
        setattr(arviz, _name, lambda *args, **kwargs: None)

import pymc3 as pm  # noqa: E402

DATA = np.random.RandomState(0).normal(1.5, 0.7, size=20)


def model():
    # PyMC3 memoizes functions of unhashable arguments by id(): an entry left by a model of an
    # earlier case is hit when a new object reuses its address, which depends on memory layout
    # (different under Theano and jitgraph). Each case starts from empty caches.
    pm.memoize.clear_cache()
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 1)
        sd = pm.HalfNormal("sd", 1)
        pm.Normal("obs", mu, sd, observed=DATA)
    return m


def log_density():
    m = model()
    point = {"mu": np.array(0.3), "sd_log__": np.array(-0.2)}
    return [m.logp(point), *m.dlogp()(point)]


def map_estimate():
    with model():
        found = pm.find_MAP(progressbar=False)
    return [found["mu"], found["sd"]]


def nuts():
    with model():
        trace = pm.sample(30, tune=30, chains=1, cores=1, random_seed=1, progressbar=False,
                          compute_convergence_checks=False)
    return trace["mu"][:5].tolist() + trace["sd"][:5].tolist()


def metropolis():
    with model():
        trace = pm.sample(20, tune=10, chains=1, cores=1, step=pm.Metropolis(), random_seed=3,
                          progressbar=False, compute_convergence_checks=False)
    return trace["mu"][:6].tolist() + trace["sd"][:6].tolist()


# ADVI is left out: pm.fit orders its variables by iterating over a set of them (hashed by
# address), so the draws each variable gets depend on memory layout, under Theano as here.
CASES = {"log_density": log_density, "map": map_estimate, "nuts": nuts,
         "metropolis": metropolis}

if __name__ == "__main__":
    main(CASES, "pymc3")
