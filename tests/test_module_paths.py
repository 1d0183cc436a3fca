"""Theano 1.0.5's module paths exist under ``jitgraph`` (``import theano.typed_list`` works as
``import jitgraph.typed_list``), and the small modules behind them behave as Theano's did.
Expected values recorded from Theano 1.0.5 (theano-oracle). tests/data/theano_modules.json
lists the 151 modules ``theano`` 1.0.5 can import."""

from __future__ import annotations

import importlib
import json
import os
import pickle
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T

THEANO_MODULES = json.loads((Path(__file__).parent / "data" / "theano_modules.json").read_text())

#: Theano modules with no jitgraph counterpart, and why
NOT_PROVIDED: dict[str, str] = {
    "theano.gof.unify": "the unification engine inside Theano's PatternSub; jitgraph's "
                        "pattern rewrites (jitgraph.rewrite.pattern.PatternNodeRewriter) "
                        "match without it",
    "theano.misc.buildbot_filter": "a filter for the logs of Theano's own test server",
    "theano.misc.burn_gpu": "a stress script for Theano's old CUDA back-end",
    "theano.misc.check_multi_gpu": "a script for gpuarray's multi-GPU contexts, which "
                                   "jitgraph does not have",
    "theano.misc.elemwise_openmp_speedup": "a timing script of Theano's OpenMP C loops (runs "
                                           "at import); jitgraph's timings live in bench/",
    "theano.misc.elemwise_time_test": "a timing script of Theano's C elemwise loops; "
                                      "jitgraph's timings live in bench/",
    "theano.misc.latence_gpu_transfert": "a timing script of Theano's old GPU transfers that "
                                         "runs at import",
    "theano.sparse.sandbox.test_sp": "Theano's unit tests of sparse.sandbox.sp, not library "
                                     "code",
}


def _jitgraph_path(module: str) -> str:
    return "jitgraph" + module[len("theano"):]


@pytest.mark.parametrize("module", [m for m in THEANO_MODULES if m not in NOT_PROVIDED])
def test_theano_module_path_imports(module):
    with warnings.catch_warnings():  # sandbox.conv warns that it is empty, as Theano's did
        warnings.simplefilter("ignore", DeprecationWarning)
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


# -- theano.scan_module.* -------------------------------------------------------------------

def test_scan_module_submodules_reexport_jitgraphs_scan():
    from jitgraph.scan.op import Scan
    from jitgraph.scan_module import scan_op, scan_opt, scan_utils, scan_views

    # as in Theano, the package's attribute ``scan`` is the function, not the module (and
    # ``theano.scan`` is the function or the callable package, by what was imported first)
    scan = importlib.import_module("jitgraph.scan_module.scan")
    builder = importlib.import_module("jitgraph.scan.builder")
    assert scan.scan is builder.scan and scan_op.Scan is Scan
    assert scan_views.map is theano.map and scan_views.foldr is theano.foldr
    scan_checkpoints = importlib.import_module("jitgraph.scan_module.scan_checkpoints")
    assert scan_checkpoints.scan_checkpoints is theano.scan_checkpoints
    assert scan_utils.until is theano.scan_module.until
    assert callable(scan_opt.save_mem)
    out, _ = theano.scan(lambda v: v * 2, sequences=[T.vector()])
    assert any(isinstance(n.op, scan_op.Scan) for n in theano.gof.graph.io_toposort(
        theano.gof.graph.inputs([out]), [out]))


def test_scan_utils_helpers():
    """Compared with theano.scan_module.scan_utils of Theano 1.0.5."""
    from jitgraph.scan_module import scan_utils as su

    x = T.vector("x")
    s = theano.shared(np.float64(1), name="s")
    cond, outs, updates = su.get_updates_and_outputs([x, {s: s + 1}, su.until(x.sum() > 0)])
    assert cond.type.dtype == "bool" and outs == [x] and list(updates) == [s]
    assert su.get_updates_and_outputs(x) == (None, [x], {})
    assert su.get_updates_and_outputs((x, x))[1] == [x, x]
    assert su.get_updates_and_outputs({s: s + 1})[1] == []
    new = su.safe_new(x, "_copy")
    assert new is not x and new.name == "x_copy" and new.type == x.type and new.owner is None
    assert su.safe_new(x, dtype="float32").type.dtype == "float32"
    assert not isinstance(su.safe_new(s), theano.compile.SharedVariable)
    assert [su.isNaN_or_Inf_or_None(v) for v in (None, T.constant(np.nan), np.inf, 1.0, x)] \
        == [True, True, True, False, False]
    assert su.hash_listsDictsTuples([1, {2: 3}, (4,)]) == su.hash_listsDictsTuples(
        [1, {2: 3}, (4,)])
    f = theano.function([x], su.expand_empty(x, 2))
    assert f(np.array([1.0, 2.0])).shape == (4,)  # Theano's new rows were uninitialised
    z = T.vector("z")
    replaced = su.forced_replace(x * 2 + 1, x * 2, z)
    assert theano.function([z], replaced)(np.array([1.0])).tolist() == [2.0]


# -- theano.gof.* -------------------------------------------------------------------------

def test_gof_modules_reexport_jitgraphs_classes():
    from jitgraph.gof import cc, destroyhandler, link, null_type, optdb, vm
    from jitgraph.graph.gradient_types import NullType
    from jitgraph.rewrite.destroyhandler import DestroyHandler

    assert null_type.NullType is NullType and null_type.null_type().type == NullType()
    assert destroyhandler.DestroyHandler is DestroyHandler
    assert cc.CLinker is theano.CLinker and cc.OpWiseCLinker is theano.OpWiseCLinker
    assert link.PerformLinker is theano.PerformLinker and link.Container is theano.Container
    assert vm.VM_Linker().name == "vm"
    assert issubclass(optdb.SequenceDB, optdb.DB)
    assert theano.gradient.NullType is NullType  # the type of undefined gradients


def test_c_toolchain_names_raise_when_used():
    from jitgraph.gof import cmodule, lazylinker_c
    from jitgraph.gof.cc import CodeBlock, HideC
    from jitgraph.unavailable import NotAvailableError

    with pytest.raises(NotAvailableError, match="GCC_compiler is not available.*Numba"):
        cmodule.GCC_compiler.compile_str("mod", "code")
    with pytest.raises(NotAvailableError, match="CodeBlock"):
        CodeBlock("a", "b", "c", "d")
    with pytest.raises(NotAvailableError):
        lazylinker_c.get_version()
    assert not isinstance(object(), cmodule.ModuleCache)
    assert not hasattr(cmodule.GCC_compiler, "version")  # introspection sees nothing there
    assert issubclass(cmodule.MissingGXX, Exception)

    class HiddenC(HideC, theano.Op):  # a mixin as in Theano's GPU ops
        pass


def test_toolbox_features():
    from jitgraph.gof import toolbox
    from jitgraph.graph.fg import FunctionGraph

    x = T.vector("x")
    y = T.exp(x)
    y.name = "y"
    fg = FunctionGraph([x], [y * 2], clone=False)
    finder = toolbox.NodeFinder()
    fg.attach_feature(finder)
    fg.attach_feature(toolbox.PreserveNames())
    fg.attach_feature(toolbox.ReplaceValidate())
    exp_op = y.owner.op
    assert fg.get_nodes(exp_op) == [y.owner]
    z = T.log(x)
    fg.replace_validate(y, z, reason="test")
    assert z.name == "y" and fg.get_nodes(exp_op) == []
    assert fg.consistent()

    inplace = T.vector("w")
    fg2 = FunctionGraph([inplace], [T.exp(inplace)], clone=False)
    fg2.attach_feature(toolbox.NoOutputFromInplace())
    fg2.validate()


def test_sched_orders_nodes():
    from jitgraph.gof.sched import key_to_cmp, posort, sort_apply_nodes, sort_schedule_fn

    assert posort([1, 5, 3, 2], key_to_cmp(lambda v: v)) == [1, 2, 3, 5]
    assert posort([3, 1, 2], lambda a, b: 0) == [3, 1, 2]
    with pytest.raises(ValueError, match="cycle"):
        before = {(1, 2), (2, 3), (3, 1)}
        posort([1, 2, 3], lambda a, b: -1 if (a, b) in before else (b, a) in before)
    x = T.vector("x")
    out = T.exp(x) + T.log(x)
    by_name_desc = key_to_cmp(lambda n: [-ord(c) for c in str(n.op)])
    nodes = sort_apply_nodes([x], [out], [by_name_desc])
    assert [str(n.op).split("{")[1][:3] for n in nodes] == ["log", "exp", "add"]
    f = theano.function([x], out, mode=theano.Mode(linker=theano.gof.CLinker(
        schedule=sort_schedule_fn(by_name_desc))))
    assert np.allclose(f(np.array([1.0])), [np.e])


def test_compilelock_nests(tmp_path):
    from jitgraph.gof import compilelock

    with compilelock.lock_ctx(lock_dir=tmp_path):
        with compilelock.lock_ctx(lock_dir=tmp_path):
            assert compilelock._depth == 2
        assert compilelock._depth == 1
    assert compilelock._depth == 0
    assert compilelock.force_unlock(tmp_path) >= 0


def test_callcache(tmp_path):
    from jitgraph.gof.callcache import CallCache

    calls = []
    cache = CallCache(str(tmp_path / "cache.pkl"))
    assert cache.call(lambda v: calls.append(v) or v * 2, (3,), key="k") == 6
    assert cache.call(lambda v: calls.append(v) or v * 2, (3,), key="k") == 6
    cache.persist()
    assert calls == [3] and CallCache(str(tmp_path / "cache.pkl")).cache == {"k": 6}


# -- sandbox, tensor, sparse, scalar, d3viz, misc -----------------------------------------

def test_moved_names_are_jitgraphs():
    import jitgraph.tensor.nnet as nnet
    from jitgraph.sandbox import blocksparse, neighbours, softsign, solve
    from jitgraph.tensor import blas, blas_c, blas_scipy, slinalg

    assert softsign.softsign is nnet.softsign and solve.solve is slinalg.solve
    assert neighbours.images2neibs is theano.tensor.nnet.neighbours.images2neibs
    assert blocksparse.sparse_block_dot is theano.tensor.nnet.blocksparse.sparse_block_dot
    assert blas_c.CGemv is blas.Gemv and blas_scipy.ScipyGer is blas.Ger
    with pytest.warns(DeprecationWarning):
        importlib.reload(importlib.import_module("jitgraph.sandbox.conv"))


def test_c_only_modules_raise_when_used():
    from jitgraph.graph.c_code import CCodeUnavailableError
    from jitgraph.tensor import blas_headers, elemwise_cgen, inc_code
    from jitgraph.unavailable import NotAvailableError

    # as in Theano, the package's name inc_code is the function, not the module
    assert callable(inc_code) and sys.modules["jitgraph.tensor.inc_code"].inc_code is inc_code

    with pytest.raises(NotAvailableError, match="Numba"):
        elemwise_cgen.make_loop()
    with pytest.raises(NotAvailableError):
        blas_headers.blas_header_text()
    with pytest.raises(CCodeUnavailableError):
        inc_code()


def test_tensor_fourier_matches_theano():
    from jitgraph.tensor.fourier import fft

    m = T.dmatrix()
    out = theano.function([m], fft(m, 3, 1))(np.arange(6.0).reshape(2, 3))
    # Theano 1.0.5's values
    expected = [[3, -1.5 + 0.8660254j, -1.5 - 0.8660254j],
                [12, -1.5 + 0.8660254j, -1.5 - 0.8660254j]]
    assert out.dtype == np.complex128 and np.allclose(out, expected)
    # gradient (Theano's fails on real(): checked against finite differences)
    v = T.dvector()
    spectrum = fft(v, 6, 0)  # zero-padded
    w, u = np.array([0.3, -1.2, 0.7, 2.0, 1.0, 0.5]), np.array([1.1, 0.4, -0.5, 0.9, 0, 2])
    cost = (T.real(spectrum) * w).sum() + (T.imag(spectrum) * u).sum()
    f, g = theano.function([v], cost), theano.function([v], theano.grad(cost, v))
    x0, eps = np.array([0.5, 1.0, -2.0, 3.0]), 1e-6
    numeric = [(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(4)]
    assert np.allclose(g(x0), numeric, atol=1e-6)


def test_sandbox_fourier_and_linalg():
    from jitgraph.sandbox import fourier
    from jitgraph.sandbox.linalg import cholesky, ops, psd, spectral_radius_bound

    assert np.allclose(fourier.dct_matrix(3, 3)[:2],  # Theano 1.0.5's values
                       [[0.57735027, 0.57735027, 0.57735027], [0.70710678, 0, -0.70710678]])
    m = T.dmatrix()
    out = theano.function([m], fourier.fft(m, 4, 1)[0])(np.arange(8.0).reshape(2, 4))
    assert np.allclose(out, [[6, -2 + 2j, -2, -2 - 2j], [22, -2 + 2j, -2, -2 - 2j]])
    half = theano.function([m], fourier.half_fft(m, 4, 1)[0])(np.arange(8.0).reshape(2, 4))
    assert np.allclose(half, out[:, :2])
    X = T.dmatrix()
    P = psd(X)
    assert (ops.is_psd(P), ops.is_symmetric(P), ops.is_psd(X)) == (True, True, False)
    assert ops.is_positive(X ** 2) and not ops.is_positive(X)
    f = theano.function([X], cholesky(P))
    assert not any(isinstance(n.op, ops.Hint) for n in f.maker.fgraph.toposort())
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    assert np.allclose(f(a), np.linalg.cholesky(a))
    bound = theano.function([X], spectral_radius_bound(X, 3))(a)
    assert np.linalg.eigvalsh(a).max() <= bound < 5.57  # Theano 1.0.5: 5.561566734279577


def test_sparse_sandbox():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    import jitgraph.sparse as S
    from jitgraph.sparse.sandbox import sp, sp2, truedot
    from jitgraph.unavailable import NotAvailableError

    assert truedot.true_dot is S.true_dot and sp.col_scale is S.col_scale
    with pytest.raises(NotAvailableError, match="conv2d"):
        sp.convolve()
    x = S.csr_matrix()
    np.random.seed(0)
    drawn = theano.function([x], sp2.poisson(x))(
        scipy_sparse.csr_matrix(np.array([[0, 2.0], [30.0, 0]])))
    assert drawn.format == "csr" and drawn[0, 0] == 0 and drawn[1, 0] > 10
    binomial = theano.function([], sp2.csr_fbinomial(5, 0.5, [2, 3]))()
    assert binomial.shape == (2, 3) and binomial.dtype == np.float32
    p, n = S.csr_matrix(), T.lvector()
    counts = theano.function([n, p], sp2.multinomial(n, p))(
        np.array([10, 4]), scipy_sparse.csr_matrix(np.array([[0.5, 0.5, 0], [0, 0, 1.0]])))
    assert counts.toarray().sum(axis=1).tolist() == [10, 4] and counts[1, 2] == 4
    assert callable(importlib.import_module("jitgraph.sparse.utils").hash_from_sparse)


def test_scalar_sharedvar_matches_theano():
    import jitgraph.scalar as S
    from jitgraph.scalar.sharedvar import shared

    s = shared(1.5, name="s")
    assert str(s.type) == "float64" and isinstance(s.get_value(), np.float64)
    y = S.float64("y")
    f = theano.function([y], s * y + 1.0, updates=[(s, s + 1.0)])
    assert (f(2.0), s.get_value()) == (4.0, 2.5)  # Theano 1.0.5's
    assert (str(shared(np.float32(1)).type), str(shared(3).type)) == ("float32", "int64")
    with pytest.raises(TypeError):
        shared(np.ones(2))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_scalar_basic_rounding_helper_matches_theano(dtype):
    from jitgraph.scalar.basic import round_half_away_from_zero_vec

    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49], dtype=dtype)
    rounded = round_half_away_from_zero_vec(halves)
    assert rounded.dtype == dtype  # Theano 1.0.5's, both dtypes:
    assert rounded.tolist() == [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 0.0]


def test_star_import_of_tensor_brings_what_theanos_did():
    import jitgraph.compile
    import jitgraph.gof

    namespace: dict = {}
    exec("from jitgraph.tensor import *", namespace)
    # Theano 1.0.5's `from theano.tensor import *` (542 names, no __all__) brings these too
    assert namespace["np"] is np and namespace["theano"] is theano
    assert namespace["compile"] is jitgraph.compile and namespace["gof"] is jitgraph.gof
    assert namespace["int32"] is theano.scalar.int32 and namespace["Rop"] is theano.gradient.Rop
    assert namespace["dvector"] is T.dvector and "as_tensor_variable" in namespace
    assert not [name for name in namespace if name.startswith("_") and name != "__builtins__"]


def test_tensor_basic_names_of_dot_and_the_scalar_bridge():
    import jitgraph.scalar as S
    from jitgraph.tensor import basic

    # Theano 1.0.5: Dot 'dot'; scalar x vector and vector x tensor3 raise TypeError
    assert (type(basic._dot).__name__, str(basic._dot)) == ("Dot", "dot")
    for a, b in [(T.scalar(), T.vector()), (T.vector(), T.tensor3())]:
        with pytest.raises(TypeError):
            basic._dot(a, b)
    assert str(basic._dot(T.vector(), T.matrix()).type) == "TensorType(float64, vector)"
    assert basic.batched_dot(T.tensor3(), T.tensor3()).ndim == 3
    assert basic.batched_tensordot(T.tensor3(), T.tensor3(), [[2], [1]]).ndim == 3
    assert str(basic.scalar_from_tensor(T.lscalar()).type) == "int64"
    assert str(basic.tensor_from_scalar(S.float32()).type) == "TensorType(float32, scalar)"
    assert basic.ScalarFromTensor.__name__ == "ScalarFromTensor"


def test_sympy_scalar_op():
    sympy = pytest.importorskip("sympy")
    import jitgraph.scalar as S
    from jitgraph.scalar.basic_sympy import SymPyCCode

    x, y = sympy.symbols("x y")
    op = SymPyCCode([x, y], x ** 2 + y)
    xt, yt = S.float64("x"), S.float64("y")
    zt = op(xt, yt)
    f = theano.function([xt, yt], zt)
    assert (f(1.0, 2.0), f(3.0, 1.0)) == (3.0, 10.0)
    assert theano.function([xt, yt], theano.grad(zt, xt))(3.0, 1.0) == 6.0
    assert op != SymPyCCode([x, y], x * y) and op == op


def test_d3viz_writes_html_and_dot(tmp_path):
    pytest.importorskip("pydot")
    from jitgraph.d3viz import d3viz, d3write

    x = T.dmatrix("x")
    f = theano.function([x], T.exp(x).sum())
    d3viz(f, str(tmp_path / "sub" / "graph.html"))
    d3write(f, str(tmp_path / "graph.dot"))
    page = (tmp_path / "sub" / "graph.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "name=x" in page and "dagre" in page
    assert (tmp_path / "graph.dot").read_text().startswith("digraph")


def test_small_misc_modules(monkeypatch):
    from jitgraph.misc.check_blas import execute
    from jitgraph.misc.doubleop import DoubleOp
    from jitgraph.misc.windows import call_subprocess_Popen, output_subprocess_Popen
    from jitgraph.pathparse import PathParser
    from jitgraph.sandbox.minimal import minimal

    x = T.vector()
    y = DoubleOp()(x)
    values = theano.function([x], [y, theano.grad(y.sum(), x)])(np.array([1.0, 2.0]))
    assert [v.tolist() for v in values] == [[2.0, 4.0], [2.0, 2.0]]
    assert output_subprocess_Popen(["echo", "hi"]) == (b"hi\n", b"", 0)
    assert call_subprocess_Popen(["false"]) == 1
    monkeypatch.setattr(PathParser, "paths", set())
    monkeypatch.setenv("PATH", os.pathsep.join(["/b", "/a"]))
    PathParser("/c")
    assert os.environ["PATH"] == os.pathsep.join(["/a", "/b", "/c"])
    assert theano.function([x], minimal(x, x))(np.array([1.0])) == 0
    seconds, ran = execute(verbose=False, M=8, N=8, K=8, iters=1)
    assert seconds >= 0 and ran


def test_submodules_reached_as_attributes():
    """``import theano`` loaded these, so code reads them as attributes without importing."""
    assert theano.gof.toolbox.Feature is theano.gof.Feature
    assert theano.gof.null_type.NullType is theano.gradient.NullType
    assert theano.scan_module.scan_utils.until is theano.scan_module.until
    assert theano.scan_module.scan_op.Scan is theano.scan_module.Scan
    assert theano.updates.OrderedUpdates is theano.OrderedUpdates
    assert theano.compat.OrderedDict is __import__("collections").OrderedDict


def test_reexports_and_placeholders_of_theano_names():
    import jitgraph.sparse as S
    import jitgraph.typed_list as tl
    from jitgraph.scan_module import scan_utils
    from jitgraph.sparse.sandbox import sp2
    from jitgraph.unavailable import NotAvailableError

    assert tl.SliceType is theano.tensor.type_other.SliceType and tl.Op is theano.Op
    assert sp2.mul_s_d is S.mul_s_d  # Theano's sp2 re-exported theano.sparse's names
    with pytest.raises(NotAvailableError, match="inner input/output lists"):
        scan_utils.scan_args([], [], [], {})
    with pytest.raises(NotAvailableError, match="clone_replace"):
        scan_utils.map_variables(lambda v: v, [])
