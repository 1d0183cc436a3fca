"""Small deterministic data sets standing in for MNIST in the training programs.

Plain NumPy (``RandomState``), so that Theano and jitgraph train on identical numbers.
"""

from __future__ import print_function

import numpy


def classification_data(seed, n_in, n_classes, sizes=(240, 80, 80)):
    """``[(train_x, train_y), (valid_x, valid_y), (test_x, test_y)]``: Gaussian blobs, one per
    class, overlapping enough that the error rates are not zero; labels are float64, as in the
    pickled MNIST the tutorials read."""
    rng = numpy.random.RandomState(seed)
    centers = rng.normal(0.0, 1.0, size=(n_classes, n_in))
    sets = []
    for size in sizes:
        labels = rng.randint(0, n_classes, size=size)
        points = centers[labels] + rng.normal(0.0, 1.5, size=(size, n_in))
        sets.append((points, labels.astype("float64")))
    return sets


def binary_patterns(seed, n_samples, n_visible, n_prototypes=4, flip=0.1):
    """Images with pixels in {0, 1}: noisy copies of a few random prototypes (what an
    autoencoder can learn to reconstruct)."""
    rng = numpy.random.RandomState(seed)
    prototypes = rng.rand(n_prototypes, n_visible) > 0.5
    which = rng.randint(0, n_prototypes, size=n_samples)
    noise = rng.rand(n_samples, n_visible) < flip
    return numpy.logical_xor(prototypes[which], noise).astype("float64")
