"""jitgraph.misc.pkl_utils: dump/load round trips (functions, shared variables, graphs, nested
containers of arrays), the zip layout of Theano 1.0.5 (data/misc_oracle.json) and reading the
files Theano's dump wrote (data/theano_*.zip, written by data/record_misc_oracle.py)."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.compile.sharedvalue import TensorSharedVariable
from jitgraph.misc import pkl_utils
from misc_cases import dump_cases

DATA = Path(__file__).parent / "data"
ORACLE = json.loads((DATA / "misc_oracle.json").read_text())


def dumped(obj, **kwargs) -> bytes:
    buf = io.BytesIO()
    pkl_utils.dump(obj, buf, **kwargs)
    return buf.getvalue()


def entries(data: bytes) -> list[str]:
    return [info.filename for info in zipfile.ZipFile(io.BytesIO(data)).infolist()]


def loaded(data: bytes):
    return pkl_utils.load(io.BytesIO(data))


@pytest.mark.parametrize("name", sorted(ORACLE["dump_entries"]))
def test_zip_entries_are_theanos(name):
    assert entries(dumped(dump_cases(theano, np)[name])) == ORACLE["dump_entries"][name]


def test_default_protocol_is_theanos():
    assert pkl_utils.DEFAULT_PROTOCOL == ORACLE["default_protocol"]


def test_entries_are_npy_files_numpy_loads():
    data = dumped(dump_cases(theano, np)["docstring"])
    with np.load(io.BytesIO(data)) as saved:
        assert saved["foo"] == 0 and saved["foo_2"] == 1 and saved["array_0"] == 2
    for info in zipfile.ZipFile(io.BytesIO(data)).infolist():
        assert info.compress_type == zipfile.ZIP_DEFLATED


def test_nested_containers_round_trip():
    cases = dump_cases(theano, np)
    foo_1, foo_2, two = loaded(dumped(cases["docstring"]))
    assert (foo_1.name, foo_2.name) == ("foo", "foo")
    assert foo_1.get_value() == 0 and foo_2.get_value() == 1 and two == 2
    w, w_again, a, a_again, d = loaded(dumped(cases["shared_twice"]))
    assert w is w_again and a is a_again and d["k"] is a
    np.testing.assert_array_equal(w.get_value(), np.arange(6.0).reshape(2, 3))
    scalar, masked, mat, strided, fortran = loaded(dumped(cases["inline_values"]))
    assert type(scalar) is np.float64 and scalar == 3
    assert isinstance(masked, np.ma.MaskedArray) and isinstance(mat, np.matrix)
    np.testing.assert_array_equal(strided, [0, 2])
    assert fortran.flags.f_contiguous and fortran.shape == (2, 2)


def test_compiled_function_round_trip_shares_its_shared_variable():
    w = theano.shared(np.arange(6.0).reshape(2, 3) * 7 + 0.5, name="W")
    x = T.dmatrix("x")
    f = theano.function([x], T.dot(x, w.T).sum(), updates=[(w, w * 2)])
    data = dumped({"f": f, "w": w})
    with np.load(io.BytesIO(data)) as saved:
        # W's array is stored under W's name. (The function's rewritten graph, when it comes
        # from the graph cache, may hold the cache's own copy of W: that copy is pickled too,
        # as W_2, so the number of copies is not checked here -- a compile/ issue.)
        assert saved["W"].tolist() == w.get_value().tolist()
    saved = loaded(data)
    f2, w2 = saved["f"], saved["w"]
    expected = 2 * w.get_value().sum()
    assert f2(np.ones((2, 3))) == f(np.ones((2, 3))) == expected
    np.testing.assert_array_equal(w2.get_value(), w.get_value())  # both doubled once
    f2(np.ones((2, 3)))
    np.testing.assert_array_equal(w2.get_value(), 2 * w.get_value())


def test_graph_round_trip():
    x = T.dmatrix("x")
    b = theano.shared(np.array([1.0, -1.0]), name="b")
    y = T.tanh(x + b).sum(axis=1)
    x2, y2 = loaded(dumped([x, y]))
    value = np.arange(4.0).reshape(2, 2)
    np.testing.assert_allclose(theano.function([x2], y2)(value),
                               np.tanh(value + [1.0, -1.0]).sum(axis=1))


def test_arrays_of_temporaries_are_not_confused():
    """Objects whose pickled state is a fresh array: ids of dead temporaries are reused by
    CPython, so the writer keeps every stored array alive while it runs."""
    values = loaded(dumped([Fresh(i) for i in range(20)]))
    assert [v.value.tolist() for v in values] == [[i] * 3 for i in range(20)]


class Fresh:
    def __init__(self, i: int) -> None:
        self.i = i

    def __reduce__(self):
        return (_fresh_from_array, (np.full(3, self.i),))


def _fresh_from_array(value):
    obj = Fresh(int(value[0]))
    obj.value = value
    return obj


def test_names_of_shared_variables():
    a = theano.shared(np.zeros(2), name="array_0")
    b = theano.shared(np.ones(2), name="W")
    c = theano.shared(np.ones(3), name="W")
    d = theano.shared(np.ones(4), name="W_2")
    e = theano.shared(np.ones(5), name="layer1.W")
    data = dumped([np.arange(3), a, b, c, d, e, np.ones(1)])
    # first come, first named; a name already taken gets the next free suffix
    assert entries(data) == ["array_0", "array_0_2", "W", "W_2", "W_2_2", "layer1.W", "array_1",
                             "pkl"]
    got = loaded(data)
    assert [v.get_value().shape for v in got[1:-1]] == [(2,), (2,), (3,), (4,), (5,)]
    np.testing.assert_array_equal(got[0], np.arange(3))


def test_persistent_ndarray_id_numbers_every_array():
    w = theano.shared(np.ones(2), name="W")
    data = dumped([w, np.zeros(1)], persistent_id=pkl_utils.PersistentNdarrayID)
    assert entries(data) == ["array_0", "array_1", "pkl"]


def test_refused_names():
    unnamed, x1, x2 = theano.shared(np.ones(2)), theano.shared(1.0, name="x"), \
        theano.shared(2.0, name="x")
    with pytest.raises(ValueError, match="unnamed shared variable"):
        dumped([unnamed], persistent_id=lambda zf: pkl_utils.PersistentSharedVariableID(
            zf, allow_unnamed=False))
    with pytest.raises(ValueError, match="two shared variables are named 'x'"):
        dumped([x1, x2], persistent_id=lambda zf: pkl_utils.PersistentSharedVariableID(
            zf, allow_duplicates=False))
    with pytest.raises(ValueError, match="named 'pkl'"):
        dumped([theano.shared(np.ones(2), name="pkl")])


def test_paths_and_missing_pickle(tmp_path):
    path = tmp_path / "model.zip"
    pkl_utils.dump({"a": np.arange(3)}, str(path))
    np.testing.assert_array_equal(pkl_utils.load(str(path))["a"], np.arange(3))
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as zf:
        zf.writestr("x", b"")
    with pytest.raises(ValueError, match="no 'pkl' entry"):
        pkl_utils.load(str(tmp_path / "other.zip"))


def test_reads_theanos_shared_variables():
    with open(DATA / "theano_params.zip", "rb") as f:
        saved = pkl_utils.load(f)
    W, b, r, u, W_again = saved["params"]
    assert W is W_again
    assert [v.name for v in (W, b, r, u)] == ["W", "b", "r", None]
    assert [str(v.type) for v in (W, b, r, u)] == [
        "TensorType(float64, matrix)", "TensorType(float32, scalar)",
        "TensorType(float32, row)", "TensorType(int32, vector)"]
    assert type(b).__name__ == "ScalarSharedVariable"
    np.testing.assert_array_equal(W.get_value(), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(saved["arr"], np.arange(4))
    assert saved["nested"][1] == ["txt", None, 3]
    x = T.dmatrix("x")
    step = theano.function([x], T.dot(x, W), updates=[(W, W + 1)])
    np.testing.assert_array_equal(step(np.eye(2)), np.arange(6.0).reshape(2, 3))
    assert W.get_value()[0, 0] == 1.0


def test_theano_graphs_are_refused_by_name():
    with pytest.raises(pickle.UnpicklingError, match="theano.tensor.var.TensorVariable"):
        pkl_utils.load(str(DATA / "theano_graph.zip"))


def test_strip_pickler_drops_debugging_tags_only_in_the_pickle():
    x = T.dmatrix("x")
    x.tag.test_value = np.ones((2, 2))
    x.tag.note = "kept"
    x.tag.extra = "dropped on request"
    y = T.exp(x) * 2
    assert hasattr(y.tag, "trace")
    buf = io.BytesIO()
    pkl_utils.StripPickler(buf, protocol=-1, extra_tag_to_remove=["extra"]).dump([x, y])
    x2, y2 = pickle.loads(buf.getvalue())
    assert vars(x2.tag) == {"note": "kept"} and not hasattr(y2.tag, "trace")
    assert hasattr(x.tag, "test_value") and hasattr(y.tag, "trace")  # originals untouched
    np.testing.assert_allclose(theano.function([x2], y2)(np.zeros((1, 1))), [[2.0]])


def test_strip_pickler_default_protocol_is_theanos_text_protocol():
    x = T.dmatrix("x")
    w = theano.shared(np.ones((2, 2)), name="w")
    f = theano.function([x], T.exp(T.dot(x, w)).sum())
    buf = io.BytesIO()
    pkl_utils.StripPickler(buf).dump(f)
    assert not buf.getvalue().startswith(b"\x80")  # protocol 0 has no PROTO opcode
    assert pickle.loads(buf.getvalue())(np.zeros((2, 2))) == 4.0


def test_compat_unpickler_reads_python2_strings():
    py2_str = b"\x80\x02U\x04caf\xe9q\x00."  # a Python 2 str, as its pickles hold them
    with pytest.raises(UnicodeDecodeError):
        pickle.loads(py2_str)
    assert pkl_utils.CompatUnpickler(io.BytesIO(py2_str)).load() == "caf\xe9"


def _py2_pickle_of_int64_array(values) -> bytes:
    """The protocol-2 pickle Python 2 writes for ``numpy.array(values, '<i8')``: its strings,
    the array's bytes included, are Python 2 ``str`` (SHORT_BINSTRING)."""
    def py2_str(raw: bytes) -> bytes:
        return b"U" + bytes([len(raw)]) + raw

    data = np.asarray(values, "<i8").tobytes()
    return (b"\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00cnumpy\nndarray\nq\x01K\x00\x85"
            + py2_str(b"b") + b"\x87R(K\x01K" + bytes([len(values)]) + b"\x85cnumpy\ndtype\n"
            + py2_str(b"i8") + b"K\x00K\x01\x87R(K\x03" + py2_str(b"<")
            + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89" + py2_str(data) + b"tb.")


def test_compat_unpickler_reads_python2_numpy_arrays():
    py2 = _py2_pickle_of_int64_array([255, 256, -1])
    with pytest.raises(UnicodeDecodeError):
        pickle.loads(py2)
    value = pkl_utils.CompatUnpickler(io.BytesIO(py2)).load()
    assert value.dtype == np.int64 and value.tolist() == [255, 256, -1]


def test_compat_unpickler_reads_theano_pickles():
    with zipfile.ZipFile(DATA / "theano_params.zip") as zf:
        unpickler = pkl_utils.CompatUnpickler(io.BytesIO(zf.read("pkl")))
        unpickler.persistent_load = pkl_utils.PersistentNdarrayLoad(zf)
        saved = unpickler.load()
    assert saved["params"][0].name == "W"


def test_importing_jitgraph_leaves_misc_alone():
    import subprocess
    import sys

    code = ("import sys, jitgraph; assert 'jitgraph.misc' not in sys.modules; "
            "import jitgraph.misc; assert jitgraph.misc is sys.modules['jitgraph.misc']; "
            "print(sorted(m for m in sys.modules if m.startswith('jitgraph.misc')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['jitgraph.misc']"


class FakeDeviceArray:
    """Looks like a CuPy array to the writer (its class's module and the CUDA interface)."""

    __module__ = "cupy._fake"
    __cuda_array_interface__ = {}

    def __init__(self, host):
        self.host, self.copies = host, 0

    def get(self):
        self.copies += 1
        return self.host


def test_device_arrays_are_stored_from_their_host_copy():
    dev = FakeDeviceArray(np.arange(4.0))
    data = dumped([dev, dev, np.ones(1)])
    assert dev.copies == 1 and entries(data) == ["array_0", "array_1", "pkl"]
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert b"gpuarray.array_0" in zf.read("pkl")
    first, second, ones = loaded(data)  # no GPU in use: read back as NumPy arrays
    assert first is second and type(first) is np.ndarray
    np.testing.assert_array_equal(first, np.arange(4.0))


def test_unknown_persistent_ids_are_refused():
    load = pkl_utils.PersistentNdarrayLoad(zipfile.ZipFile(io.BytesIO(dumped([]))))
    with pytest.raises(pickle.UnpicklingError, match="unknown persistent id 'blob.x'"):
        load("blob.x")


class DeviceShared(TensorSharedVariable):
    """Pickles as GpuArraySharedVariable does: a host copy of the device value it holds."""

    def get_value(self, borrow=False, return_internal_type=False):
        return self._value if return_internal_type else self._value.get()

    def __getstate__(self):
        state = super().__getstate__()
        state["_value"] = self._value.get().copy()
        return state


def test_shared_variable_on_the_device_is_named_and_stored_once():
    """A GPU shared variable pickles a fresh host copy of its value; dump stores the device
    array it holds instead, under the variable's name (stand-ins for CuPy and the variable)."""
    w = theano.shared(np.zeros(3), name="W")
    w.__class__ = DeviceShared
    w._value = FakeDeviceArray(np.arange(3.0))
    data = dumped([w, w, w._value])
    assert entries(data) == ["W", "pkl"] and w._value.copies == 1
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert b"gpuarray.W" in zf.read("pkl")
    w2, w2_again, value = loaded(data)
    assert w2 is w2_again and w2._value is value
    np.testing.assert_array_equal(value, np.arange(3.0))


def test_reads_theanos_random_state_and_sparse_shared_variables():
    rng, S = pkl_utils.load(str(DATA / "theano_other.zip"))
    assert (rng.name, S.name) == ("rng", "S")
    assert type(rng).__name__ == "RandomStateSharedVariable"
    assert rng.get_value().randint(1000) == ORACLE["rng_first_randint"]
    assert S.get_value().format == "csr"
    np.testing.assert_array_equal(S.get_value().toarray(), np.arange(9.0).reshape(3, 3))
    x = T.dvector("x")
    np.testing.assert_allclose(theano.function([x], theano.sparse.dot(S, x))(np.ones(3)),
                               [3.0, 12.0, 21.0])
