"""Deterministic bag-of-words data shared by the sparse programs (NumPy's legacy RandomState
gives the same numbers in every NumPy version, so Theano 1.0.5 and jitgraph see one dataset)."""
import numpy as np
import scipy.sparse as sp


def bag_of_words(n_docs, n_words, words_per_doc, seed):
    rng = np.random.RandomState(seed)
    rows, cols, vals = [], [], []
    for d in range(n_docs):
        words = np.unique(rng.randint(0, n_words, size=words_per_doc))
        rows.extend([d] * len(words))
        cols.extend(words.tolist())
        vals.extend((1 + rng.randint(0, 3, size=len(words))).tolist())
    counts = sp.csr_matrix((np.asarray(vals, dtype='float64'), (rows, cols)),
                           shape=(n_docs, n_words))
    return counts, rng


def rounded(values, digits=10):
    return [round(float(v), digits) for v in np.asarray(values).ravel()]
