"""``theano.gof.utils``'s helpers against Theano 1.0.5's answers (recorded with the oracle)."""

from __future__ import annotations

import jitgraph.gof.utils as utils
import jitgraph.tensor.core.utils as tensor_utils


def test_list_helpers_match_theano():
    assert utils.flatten([1, [2, (3, [4])], 5]) == [1, 2, 3, 4, 5]
    assert utils.flatten((1, 2)) == [1, 2] and utils.flatten(3) == [3]
    assert utils.uniq([3, 1, 3, 2, 1]) == [3, 1, 2]
    assert utils.difference([1, 2, 3, 4], [2, 4]) == [1, 3]
    assert utils.difference([1, [2]], [[2]]) == [1]
    assert utils.remove(lambda x: x > 2, [1, 3, 2, 4]) == [1, 2]


def test_content_hashes_match_theano(tmp_path):
    path = tmp_path / "hello.txt"
    path.write_bytes(b"hello")
    assert utils.hash_from_file(str(path)) == \
        "m2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    assert utils.hash_from_code("abc") == \
        "mba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert tensor_utils.hash_from_code is utils.hash_from_code
