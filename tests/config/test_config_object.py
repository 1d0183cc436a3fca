"""In-process tests of ``Config``: each test builds its own config from an explicit environment."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from jitgraph.config import (
    Config,
    ConfigError,
    ConfigReadOnlyError,
    JitgraphConfigWarning,
    change_flags,
    config,
)
from jitgraph.config.flags import register_all_flags

MakeConfig = Callable[..., Config]


def test_every_seed_flag_is_registered(make_config: MakeConfig) -> None:
    cfg = make_config()
    seed_flags = """
        device force_device init_gpu_device pycuda.init print_active_device floatX warn_float64
        allow_gc openmp openmp_elemwise_minsize cast_policy int_division mode profile
        profile_memory profile_optimizer profiling.n_apply profiling.n_ops
        profiling.min_memory_size profiling.min_peak_memory profiling.destination
        profiling.time_thunks profiling.output_line_width profiling.debugprint
        profiling.ignore_first_call lib.amdlibm linker optimizer on_opt_error on_shape_error
        warn.ignore_bug_before base_compiledir compiledir_format compiledir blas.ldflags
        experimental.local_alloc_elemwise_assert cuda.root dnn.conv.workmem gcc.cxxflags cxx
        nvcc.fastmath nvcc.flags nvcc.compiler_bindir optimizer_excluding optimizer_including
        optimizer_requiring optimizer_verbose nocleanup compile.timeout compile.wait
        DebugMode.patience DebugMode.check_c DebugMode.check_py DebugMode.check_finite
        DebugMode.check_strides DebugMode.warn_input_not_reused
        DebugMode.check_preallocated_output DebugMode.check_preallocated_output_ndim
        numpy.seterr_all numpy.seterr_divide numpy.seterr_over numpy.seterr_under
        numpy.seterr_invalid compute_test_value compute_test_value_opt print_test_value
        unpickle_function reoptimize_unpickled_function exception_verbosity
        cmodule.warn_no_version cmodule.mac_framework_link cmodule.remove_gxx_opt
        cmodule.compilation_warning cmodule.preload_cache cmodule.age_thresh_use cmodule.debug
        contexts enable_initial_driver_test gpuarray.sync gpuarray.preallocate
        dnn.conv.workmem_bwd dnn.conv.algo_bwd dnn.conv.algo_fwd dnn.conv.algo_bwd_data
        dnn.conv.algo_bwd_filter dnn.conv.precision dnn.include_path dnn.library_path
        assert_no_cpu_op tensor.cmp_sloppy tensor.local_elemwise_fusion
        gpu.local_elemwise_fusion gpuelemwise.sync traceback.limit traceback.compile_limit
        experimental.mrg experimental.unpickle_gpu_on_cpu warn.argmax_pushdown_bug
        warn.gpusum_01_011_0111_bug warn.sum_sum_bug warn.sum_div_dimshuffle_bug
        warn.subtensor_merge_bug warn.gpu_set_subtensor1 warn.vm_gc_bug
        warn.signal_conv2d_interface warn.reduce_join warn.inc_set_subtensor1
        warn.identify_1pexp_bug check_input cache_optimizations unittests.rseed metaopt.verbose
        optdb.position_cutoff optdb.max_use_ratio vm.lazy ProfileMode.n_apply_to_print
        ProfileMode.n_ops_to_print ProfileMode.min_memory_size ProfileMode.profile_memory
        tensor.insert_inplace_optimizer_validate_nb experimental.local_alloc_elemwise
        scan.allow_gc scan.allow_output_prealloc cublas.lib lib.cnmem cycle_detection
        check_stack_trace conv.assert_shape ctc.root NanGuardMode.nan_is_error
        NanGuardMode.inf_is_error NanGuardMode.big_is_error NanGuardMode.action home
        gpuarray.sched gpuarray.single_stream gpuarray.cache_path deterministic
        print_global_stats
    """.split()
    missing = [name for name in seed_flags if name not in cfg]
    assert not missing
    for name in cfg.flag_names():
        param = cfg.param(name)
        assert param.doc, name  # every flag is documented


def test_theano_1_0_defaults(make_config: MakeConfig) -> None:
    cfg = make_config()
    expected = {
        "floatX": "float64", "device": "cpu", "mode": "Mode", "linker": "cvm", "optimizer": "o4",
        "warn.ignore_bug_before": "0.9", "reoptimize_unpickled_function": False, "openmp": False,
        "cxx": "numba", "compile.wait": 5, "compile.timeout": 120, "optdb.max_use_ratio": 8.0,
        "cmodule.age_thresh_use": 2073600, "DebugMode.check_c": True, "traceback.limit": 8,
        "numpy.seterr_all": "ignore", "numpy.seterr_divide": "None", "vm.lazy": None,
        "cuda.root": "", "on_opt_error": "warn", "dnn.conv.precision": "as_input_f32",
    }
    assert {name: cfg.get(name) for name in expected} == expected
    assert cfg.get("optdb.position_cutoff") == float("inf")
    assert cfg.compiledir_format.startswith("compiledir_%(short_platform)s")


def test_lazy_defaults_follow_other_flags(make_config: MakeConfig, home: Path) -> None:
    cfg = make_config(THEANO_FLAGS="compile.wait=2,cxx=,warn.ignore_bug_before=0.6",
                      CUDA_PATH="/opt/cuda")
    assert cfg.get("compile.timeout") == 48
    assert cfg.get("DebugMode.check_c") is False  # bool(cxx)
    assert cfg.get("cuda.root") == "/opt/cuda"
    assert cfg.base_compiledir == str(home / ".jitgraph")
    # Theano's rule: warn about bugs fixed after the first version the user ran.
    assert cfg.warn.reduce_join is True and cfg.warn.subtensor_merge_bug is False


def test_attribute_access_in_all_styles(make_config: MakeConfig) -> None:
    cfg = make_config()
    cfg.nvcc.fastmath = True
    assert cfg.nvcc__fastmath is True and cfg.get("nvcc__fastmath") is True
    cfg.nvcc__fastmath = "False"
    assert cfg.nvcc.fastmath is False
    cfg.DebugMode.check_c = "0"
    assert cfg.DebugMode.check_c is False and cfg.source_of("DebugMode__check_c") == "code"
    assert cfg.dnn.conv.algo_fwd == "small" and cfg.dnn__conv__algo_fwd == "small"
    assert "fastmath" in dir(cfg.nvcc) and "floatX" in dir(cfg) and "nvcc" in dir(cfg)
    cfg.floatX = "32"
    assert cfg.floatX == "float32"


def test_unknown_names_give_suggestions(make_config: MakeConfig) -> None:
    cfg = make_config()
    with pytest.raises(AttributeError, match="did you mean 'floatX'"):
        cfg.flaotX = 1
    with pytest.raises(AttributeError, match="did you mean 'floatX'"):
        cfg.flaotX  # noqa: B018
    with pytest.raises(AttributeError, match="did you mean 'fastmath'|nvcc.fastmath"):
        cfg.nvcc.fastmat  # noqa: B018
    with pytest.raises(AttributeError, match="is a section"):
        cfg.nvcc = 1
    with pytest.raises(ConfigError, match="did you mean 'floatX'"):
        cfg.get("floatx")
    assert not hasattr(cfg, "no_such_flag")


def test_validation_in_code(make_config: MakeConfig) -> None:
    cfg = make_config()
    with pytest.raises(ConfigError) as err:
        cfg.floatX = "float128"
    msg = str(err.value)
    assert all(s in msg for s in ("'floatX'", "'float128'", "float64, float32, float16", "code"))
    with pytest.raises(ConfigError, match=r"must be > 0"):
        cfg.profiling.n_apply = 0
    assert cfg.floatX == "float64" and cfg.source_of("floatX") == "default"


def test_read_only_flags_refuse_assignment_and_change_flags(make_config: MakeConfig) -> None:
    cfg = make_config()
    read_only = ["device", "force_device", "init_gpu_device", "print_active_device",
                 "base_compiledir", "compiledir_format", "compiledir", "optimizer_excluding",
                 "optimizer_including", "optimizer_requiring", "numpy.seterr_all",
                 "numpy.seterr_divide", "warn.ignore_bug_before", "compile.wait",
                 "compile.timeout", "cmodule.age_thresh_use", "cmodule.preload_cache",
                 "tensor.cmp_sloppy", "gpuarray.preallocate", "lib.cnmem", "contexts"]
    assert all(cfg.param(n).read_only for n in read_only)
    with pytest.raises(ConfigReadOnlyError) as err:
        cfg.gpuarray.preallocate = 0.5
    msg = str(err.value)
    assert "'gpuarray.preallocate'" in msg and "JITGRAPH_FLAGS" in msg and "THEANO_FLAGS" in msg
    assert "[gpuarray]" in msg and "preallocate = 0.5" in msg
    with pytest.raises(ConfigReadOnlyError, match="'compiledir'"):
        cfg.compiledir = "/tmp/elsewhere"  # no "assign once before the first read" loophole
    with pytest.raises(ConfigReadOnlyError, match="change_flags"):
        with cfg.change_flags(device="cuda0"):
            pass
    with pytest.raises(ConfigReadOnlyError):
        cfg.change_flags({"compile.wait": 9}).__enter__()
    assert cfg.device == "cpu" and cfg.get("compile.wait") == 5
    # Re-asserting the current value is an accepted no-op; the source does not change.
    with cfg.change_flags(device="cpu"):
        cfg.device = "cpu"
        assert cfg.source_of("device") == "default"


def test_change_flags_context_manager_decorator_dict_and_restore(make_config: MakeConfig) -> None:
    cfg = make_config(THEANO_FLAGS="floatX=float32")
    with cfg.change_flags({"nvcc.fastmath": True, "DebugMode.check_c": False},
                          floatX="float16") as inside:
        assert inside is cfg
        assert (cfg.floatX, cfg.nvcc.fastmath, cfg.DebugMode.check_c) == ("float16", True, False)
        assert cfg.source_of("floatX") == "code"
    assert (cfg.floatX, cfg.nvcc.fastmath) == ("float32", False)
    assert cfg.source_of("floatX") == "env THEANO_FLAGS"
    assert cfg.source_of("nvcc.fastmath") == "default"

    @cfg.change_flags(floatX="float64", optimizer=None)
    def inner(depth: int) -> tuple[str, str]:
        if depth:  # re-entrant: the decorator works under recursion
            return inner(depth - 1)
        return cfg.floatX, cfg.optimizer

    assert inner(2) == ("float64", "None") and cfg.floatX == "float32"

    with pytest.raises(RuntimeError):
        with cfg.change_flags(floatX="float64"):
            cfg.profile = True  # changed inside the block: restored too only if listed
            raise RuntimeError
    assert cfg.floatX == "float32" and cfg.profile is True


def test_change_flags_validates_everything_before_changing_anything(
        make_config: MakeConfig) -> None:
    cfg = make_config()
    with pytest.raises(ConfigError, match="did you mean 'floatX'"):
        cfg.change_flags(floatx="float32")
    with pytest.raises(ConfigError, match="'maybe'.*'allow_gc'"):
        cfg.change_flags(floatX="float32", allow_gc="maybe")
    with pytest.raises(ConfigReadOnlyError):
        with cfg.change_flags(floatX="float32", device="cuda"):
            pass
    assert cfg.floatX == "float64" and cfg.source_of("floatX") == "default"


def test_module_level_change_flags_uses_the_global_config() -> None:
    before = config.floatX
    new = "float16" if before != "float16" else "float32"
    with change_flags(floatX=new):
        assert config.floatX == new
    with config.change_flags(floatX=new):
        assert config.floatX == new
    assert config.floatX == before


def test_ignored_flags_warn_once_with_reason(make_config: MakeConfig) -> None:
    with pytest.warns(JitgraphConfigWarning, match="pycuda.init.*env THEANO_FLAGS.*PyCUDA"):
        cfg = make_config(THEANO_FLAGS="pycuda.init=True,lib.amdlibm=False")
    with pytest.warns(JitgraphConfigWarning, match="'lib.amdlibm'.*code"):
        cfg.lib.amdlibm = True
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg.lib.amdlibm = False  # already warned once: silent
        cfg.pycuda.init = True


def test_code_hash_tracks_code_affecting_flags_only(make_config: MakeConfig) -> None:
    cfg = make_config()
    items = cfg.code_affecting_items()
    assert items == tuple(sorted(items)) and hash(items) is not None
    names = {name for name, _ in items}
    assert {"floatX", "cxx", "gcc.cxxflags", "openmp", "nvcc.fastmath", "nvcc.flags",
            "check_input", "cmodule.remove_gxx_opt", "cmodule.debug"} <= names
    assert not names & {"mode", "optimizer", "linker", "profile", "device"}
    base = cfg.code_hash()
    assert len(base) == 64 and base == make_config().code_hash()
    with cfg.change_flags(profile=True, optimizer="o1", mode="FAST_COMPILE"):
        assert cfg.code_hash() == base
    with cfg.change_flags(floatX="float32"):
        assert cfg.code_hash() != base
    with cfg.change_flags({"nvcc.fastmath": True}):
        assert cfg.code_hash() != base
    assert cfg.code_hash() == base


def test_seterr_kwargs(make_config: MakeConfig) -> None:
    assert make_config().seterr_kwargs() == dict.fromkeys(
        ("divide", "over", "under", "invalid"), "ignore")
    cfg = make_config(THEANO_FLAGS="numpy.seterr_all=None,numpy.seterr_divide=raise")
    assert cfg.seterr_kwargs() == {"divide": "raise"}  # other kinds keep NumPy's setting
    cfg = make_config(THEANO_FLAGS="numpy.seterr_all=warn,numpy.seterr_under=ignore")
    kw = cfg.seterr_kwargs()
    assert kw == {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
    import numpy as np

    before = np.geterr()
    with np.errstate(**kw):
        assert np.geterr()["under"] == "ignore"
    assert np.geterr() == before


def test_print_lists_every_flag_with_value_and_source(make_config: MakeConfig,
                                                      home: Path) -> None:
    (home / ".theanorc").write_text("[nvcc]\nfastmath = True\n")
    cfg = make_config(JITGRAPH_FLAGS="floatX=float32")
    cfg.profile = True
    text = str(cfg)
    assert text.count("    Source:  ") == len(cfg.flag_names())
    assert text.index("floatX (") < text.index("device (") < text.index("profile (")
    block = cfg.describe("nvcc__fastmath")
    assert block.startswith("nvcc.fastmath (bool)")
    assert "    Doc:  " in block and "    Value:  True" in block
    assert f"    Source:  rc file {home / '.theanorc'} [nvcc]" in block
    assert "Source:  env JITGRAPH_FLAGS" in cfg.describe("floatX")
    assert "Source:  code" in cfg.describe("profile")
    assert cfg.describe("device").startswith("device (cpu, cuda, cudaN, gpu, gpuN") and \
        "[read-only]" in cfg.describe("device").splitlines()[0]
    assert "[ignored by jitgraph]" in cfg.describe("pycuda.init")


def test_unknown_rc_sections_and_options_warn_once(make_config: MakeConfig, home: Path) -> None:
    (home / ".theanorc").write_text(
        "[global]\nflaotX = float32\n[nanguardmode]\naction = warn\nnan_is_error = 0\n"
        "[DebugMode]\npatiense = 3\n")
    with pytest.warns(JitgraphConfigWarning) as record:
        cfg = make_config()
    messages = [str(w.message) for w in record]
    assert sum("flaotX" in m and "'floatX'" in m for m in messages) == 1
    assert sum("[nanguardmode]" in m and "[NanGuardMode]" in m for m in messages) == 1
    assert sum("patiense" in m and "'patience'" in m for m in messages) == 1
    assert cfg.NanGuardMode.action == "raise" and cfg.floatX == "float64"


def test_register_requires_unique_well_formed_names() -> None:
    cfg = Config({}, read_sources=False)
    register_all_flags(cfg)
    from jitgraph.config import BoolParam

    for bad in ("floatX", "nvcc", "floatX.sub", "FLOATX", "a__b", "get"):
        with pytest.raises(ValueError):
            cfg.add(BoolParam(bad, False, "doc"))


def test_ensure_compiledir_creates_on_demand(make_config: MakeConfig, tmp_path: Path) -> None:
    base = tmp_path / "base"
    cfg = make_config(THEANO_FLAGS=f"base_compiledir={base},compiledir_format=cd_%(device)s")
    assert cfg.compiledir == str(base / "cd_cpu")
    assert not base.exists()  # computing the path creates nothing
    path = cfg.ensure_compiledir()
    assert Path(path).is_dir() and path == os.path.realpath(base / "cd_cpu")
    assert cfg.ensure_compiledir() == path  # idempotent


def test_ensure_compiledir_on_unusable_base_is_a_clear_error(
        make_config: MakeConfig, tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")  # a file where a folder should be fails even for root
    cfg = make_config(THEANO_FLAGS=f"base_compiledir={blocker / 'sub'}")
    with pytest.raises(ConfigError) as err:
        cfg.ensure_compiledir()
    msg = str(err.value)
    assert str(blocker / "sub") in msg and "base_compiledir" in msg
    cfg = make_config(THEANO_FLAGS=f"compiledir={blocker / 'x'}")
    with pytest.raises(ConfigError, match="Set the compiledir flag"):
        cfg.ensure_compiledir()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores permissions")
def test_ensure_compiledir_on_read_only_base(make_config: MakeConfig, tmp_path: Path) -> None:
    base = tmp_path / "ro"
    base.mkdir()
    base.chmod(0o500)
    try:
        cfg = make_config(THEANO_FLAGS=f"base_compiledir={base}")
        with pytest.raises(ConfigError, match="base_compiledir"):
            cfg.ensure_compiledir()
    finally:
        base.chmod(0o700)


def test_omp_num_threads(make_config: MakeConfig) -> None:
    from jitgraph.config import omp_num_threads

    assert omp_num_threads({}) is None and omp_num_threads({"OMP_NUM_THREADS": "8,1"}) == 8
    with pytest.raises(ConfigError, match="OMP_NUM_THREADS='abc'"):
        make_config(OMP_NUM_THREADS="abc")
