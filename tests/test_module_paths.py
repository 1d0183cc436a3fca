"""Theano 1.0.5's module paths exist under ``jitgraph`` (``import theano.typed_list`` works as
``import jitgraph.typed_list``), and the small modules behind them behave as Theano's did.
Expected values recorded from Theano 1.0.5 (theano-oracle). tests/data/theano_modules.json
lists the 151 modules ``theano`` 1.0.5 can import."""

from __future__ import annotations

import importlib
import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T

THEANO_MODULES = json.loads((Path(__file__).parent / "data" / "theano_modules.json").read_text())

#: Theano modules with no jitgraph counterpart, and why
NOT_PROVIDED: dict[str, str] = {
    "theano.compile.sandbox": "not written yet",
    "theano.d3viz": "not written yet",
    "theano.d3viz.d3viz": "not written yet",
    "theano.d3viz.formatting": "not written yet",
    "theano.gof.callcache": "not written yet",
    "theano.gof.cc": "not written yet",
    "theano.gof.cmodule": "not written yet",
    "theano.gof.compiledir": "not written yet",
    "theano.gof.compilelock": "not written yet",
    "theano.gof.cutils": "not written yet",
    "theano.gof.destroyhandler": "not written yet",
    "theano.gof.lazylinker_c": "not written yet",
    "theano.gof.link": "not written yet",
    "theano.gof.null_type": "not written yet",
    "theano.gof.optdb": "not written yet",
    "theano.gof.params_type": "not written yet",
    "theano.gof.sched": "not written yet",
    "theano.gof.toolbox": "not written yet",
    "theano.gof.unify": "not written yet",
    "theano.gof.vm": "not written yet",
    "theano.misc.buildbot_filter": "not written yet",
    "theano.misc.burn_gpu": "not written yet",
    "theano.misc.check_blas": "not written yet",
    "theano.misc.check_multi_gpu": "not written yet",
    "theano.misc.doubleop": "not written yet",
    "theano.misc.elemwise_openmp_speedup": "not written yet",
    "theano.misc.elemwise_time_test": "not written yet",
    "theano.misc.latence_gpu_transfert": "not written yet",
    "theano.misc.windows": "not written yet",
    "theano.pathparse": "not written yet",
    "theano.sandbox.blocksparse": "not written yet",
    "theano.sandbox.conv": "not written yet",
    "theano.sandbox.fourier": "not written yet",
    "theano.sandbox.linalg": "not written yet",
    "theano.sandbox.linalg.ops": "not written yet",
    "theano.sandbox.minimal": "not written yet",
    "theano.sandbox.neighbours": "not written yet",
    "theano.sandbox.softsign": "not written yet",
    "theano.sandbox.solve": "not written yet",
    "theano.scalar.basic_sympy": "not written yet",
    "theano.scalar.sharedvar": "not written yet",
    "theano.scan_module.scan": "not written yet",
    "theano.scan_module.scan_checkpoints": "not written yet",
    "theano.scan_module.scan_op": "not written yet",
    "theano.scan_module.scan_opt": "not written yet",
    "theano.scan_module.scan_utils": "not written yet",
    "theano.scan_module.scan_views": "not written yet",
    "theano.sparse.sandbox": "not written yet",
    "theano.sparse.sandbox.sp": "not written yet",
    "theano.sparse.sandbox.sp2": "not written yet",
    "theano.sparse.sandbox.test_sp": "not written yet",
    "theano.sparse.sandbox.truedot": "not written yet",
    "theano.sparse.utils": "not written yet",
    "theano.tensor.blas_c": "not written yet",
    "theano.tensor.blas_headers": "not written yet",
    "theano.tensor.blas_scipy": "not written yet",
    "theano.tensor.elemwise_cgen": "not written yet",
    "theano.tensor.fourier": "not written yet",
    "theano.tensor.inc_code": "not written yet",
    "theano.tensor.opt_uncanonicalize": "not written yet",
    "theano.typed_list": "not written yet",
    "theano.typed_list.basic": "not written yet",
    "theano.typed_list.opt": "not written yet",
    "theano.typed_list.type": "not written yet",
}


def _jitgraph_path(module: str) -> str:
    return "jitgraph" + module[len("theano"):]


@pytest.mark.parametrize("module", [m for m in THEANO_MODULES if m not in NOT_PROVIDED])
def test_theano_module_path_imports(module):
    importlib.import_module(_jitgraph_path(module))


@pytest.mark.parametrize("module", sorted(NOT_PROVIDED))
def test_modules_not_provided_are_absent(module):
    with pytest.raises(ImportError):
        importlib.import_module(_jitgraph_path(module))


# -- theano.updates, compat, version -------------------------------------------------------

def test_updates_is_scans_ordered_updates():
    from jitgraph.scan.updates import OrderedUpdates
    from jitgraph.updates import OrderedUpdates as Updates

    assert Updates is OrderedUpdates is theano.OrderedUpdates
    assert theano.updates.OrderedUpdates is OrderedUpdates
    a = theano.shared(1.0)
    updates = Updates()
    updates[a] = a + 1
    with pytest.raises(TypeError):
        updates[T.scalar()] = 1


def test_compat_names():
    from jitgraph import compat

    assert compat.PY3 is True and compat.izip is zip and compat.imap is map
    assert compat.ifilter is filter and compat.operator_div(1, 2) == 0.5
    assert compat.b("ab") == b"ab" and compat.decode(b"x") == "x"
    assert list(compat.decode_iter([b"a"])) == ["a"]
    assert compat.decode_with(b"\xc3\xa9", "utf-8") == "\u00e9"
    assert (compat.cmp(1, 2), compat.cmp(2, 2), compat.cmp(3, 2)) == (-1, 0, 1)
    assert compat.exc_message(ValueError("m")) == "m"
    assert compat.exc_message(ValueError(b"m")) == b"m"
    assert compat.exc_message(ValueError(KeyError("inner"))) == "inner"
    assert compat.get_unbound_function(str.upper) is str.upper
    d = compat.DefaultOrderedDict(list)
    d["b"].append(1)
    d["a"]
    assert repr(d) == "DefaultOrderedDict([('b', [1]), ('a', [])])"  # as Theano printed it
    assert list(pickle.loads(pickle.dumps(d))) == ["b", "a"] and d.copy() == d
    with pytest.raises(KeyError):
        compat.DefaultOrderedDict()["x"]


def test_maybe_add_to_os_environ_pathlist(monkeypatch):
    from jitgraph.compat import maybe_add_to_os_environ_pathlist

    monkeypatch.setenv("JG_TEST_PATH", os.pathsep.join(["/a", "/b"]))
    maybe_add_to_os_environ_pathlist("JG_TEST_PATH", "/c")
    maybe_add_to_os_environ_pathlist("JG_TEST_PATH", "/a")
    maybe_add_to_os_environ_pathlist("JG_TEST_PATH", "relative")
    assert os.environ["JG_TEST_PATH"] == os.pathsep.join(["/c", "/a", "/b"])


def test_version_modules_describe_jitgraph():
    from jitgraph import _version, version

    assert version.version == version.full_version == theano.__version__
    assert _version.get_versions()["version"] == theano.__version__
    assert version.theano_version == "1.0.5"


# -- theano.raise_op ---------------------------------------------------------------------

def test_raise_op_raises_when_run():
    from jitgraph.raise_op import Raise

    op = Raise("boom", ValueError)
    assert str(op) == "Raise{<class 'ValueError'>(boom)}"  # Theano 1.0.5's
    assert op == Raise("boom", ValueError) and hash(op) == hash(Raise("boom", ValueError))
    x = T.vector()
    y = op(x)
    assert y.type == x.type
    f = theano.function([x], y)
    with pytest.raises(ValueError, match="boom"):
        f([1.0])
    g = theano.function([], Raise()(T.constant(1.0)))  # not folded away while compiling
    with pytest.raises(NotImplementedError):
        g()


# -- theano.misc helpers -----------------------------------------------------------------

def test_ordered_set():
    from jitgraph.misc.ordered_set import OrderedSet, check_deterministic

    s = OrderedSet([3, 1, 2, 1])
    assert repr(s) == "OrderedSet([3, 1, 2])"
    assert list(s | {5}) == [3, 1, 2, 5] and list(s.union([0])) == [3, 1, 2, 0]
    assert s != OrderedSet([1, 3, 2]) and s != [3, 1, 2] and s == OrderedSet([3, 1, 2])
    assert list(s - OrderedSet([1])) == [3, 2]
    assert list(pickle.loads(pickle.dumps(s))) == [3, 1, 2]
    assert s.pop() == 2 and s.pop(last=False) == 3
    with pytest.raises(TypeError):
        s == {1}  # noqa: B015
    with pytest.raises(AssertionError):
        check_deterministic({1, 2})
    with pytest.raises(AssertionError):
        OrderedSet({1, 2})


def test_frozendict():
    from jitgraph.misc.frozendict import FrozenOrderedDict, frozendict

    f = frozendict(a=1)
    assert repr(f) == "<frozendict {'a': 1}>"
    assert hash(f) == hash(frozendict(a=1)) and {f: 1}[frozendict(a=1)] == 1
    assert repr(f.copy(b=2)) == "<frozendict {'a': 1, 'b': 2}>"
    assert repr(FrozenOrderedDict(a=1, b=2)) == \
        "<FrozenOrderedDict OrderedDict([('a', 1), ('b', 2)])>"
    with pytest.raises(TypeError):
        f["a"] = 2


def test_strutil_cpucount_safe_asarray():
    from jitgraph.misc.cpucount import cpuCount
    from jitgraph.misc.safe_asarray import _asarray
    from jitgraph.misc.strutil import pretty_format, render_string

    assert pretty_format("a{\nb;\n  }") == "a{\n    b;\n}"
    assert render_string("%(a)s", {"a": 1}) == "1"
    with pytest.raises(Exception, match=r"%\(a\)s %\(b\)<<<< caused exception 'b'"):
        render_string("%(a)s %(b)s", {"a": 1})
    assert cpuCount() >= 1
    assert _asarray([1], "floatX").dtype == theano.config.floatX
    assert _asarray([1], "int32").dtype == np.int32


def test_configdefaults():
    from jitgraph import configdefaults

    assert configdefaults.config is theano.config
    assert configdefaults.local_bitwidth() in (32, 64)
    assert configdefaults.default_compiledir() == theano.config.compiledir
