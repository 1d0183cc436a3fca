"""Indexing: basic and advanced ``x[...]``, boolean masks, ``set_subtensor``/``inc_subtensor``, the
index encoding, nonzero, ravel/unravel, take and permutations."""
