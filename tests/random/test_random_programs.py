"""Programs with random draws (``random_programs.py``: the tutorial's random-number sections,
copying random state between graphs, raw_random's other distributions, MRG draws in float32,
dropout, a denoising autoencoder, an RBM Gibbs step) and programs drawing inside ``scan``
(``random_scan_programs.py``: the loop tutorial's binomial noise, RBMs trained by CD-k and
persistent CD, dropout in an LSTM, an HMC sampler, stacked denoising autoencoders) and
``random_model_programs.py`` (a variational autoencoder with reparameterised MRG normal draws,
a float32 character RNN sampled with MRG multinomial in scan, word2vec with negative samples,
random-walk Metropolis in scan, a GAN, Gumbel-softmax, Bayes by backprop) print what
Theano 1.0.5 printed (``theano_random_programs.npz``, recorded by
``record_random_programs.py``)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import jitgraph

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import random_programs  # noqa: E402
import random_scan_programs  # noqa: E402
import random_model_programs  # noqa: E402

PROGRAMS = {**random_programs.PROGRAMS, **random_scan_programs.PROGRAMS,
            **random_model_programs.PROGRAMS}

RECORDED = np.load(os.path.join(HERE, "theano_random_programs.npz"))

#: programs whose numbers go through log/cos/sin/exp (normal draws, sigmoid training): equal to
#: the last few ulps; everything else bit for bit
APPROXIMATE = {"mrg_draws_float32", "dropout_mlp_mrg", "denoising_autoencoder",
               "tutorial_loop_binomial_noise", "scan_draws_each_step", "rbm_cd1", "rbm_cd3",
               "rbm_pcd_and_sampling", "lstm_dropout_mrg", "hmc_gaussian",
               "stacked_denoising_autoencoders", "vae_reparameterised_mrg",
               "char_rnn_sample_mrg_float32", "word2vec_negative_sampling", "metropolis_in_scan",
               "gan_mrg_noise", "gumbel_softmax_mrg", "bayes_by_backprop_mrg"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_theanos_numbers(name: str) -> None:
    got = PROGRAMS[name](jitgraph)
    want_keys = sorted(k.split("/", 1)[1] for k in RECORDED.files if k.startswith(name + "/"))
    assert sorted(got) == want_keys
    for key, value in got.items():
        want = RECORDED[f"{name}/{key}"]
        value = np.asarray(value)
        assert value.shape == want.shape and value.dtype == want.dtype, key
        if name in APPROXIMATE and want.dtype.kind == "f":
            tol = 2e-6 if want.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(value, want, rtol=tol, atol=tol, err_msg=key)
        else:
            np.testing.assert_array_equal(value, want, err_msg=key)
