"""Theano flags that jitgraph accepts but ignores.

They exist so that old ``.theanorc`` files and ``THEANO_FLAGS`` strings keep working without
"unknown flag" warnings. Each carries an ``ignored_reason``; a value other than the default (from
any source) warns once with that reason. Values are still type-checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jitgraph.config.params import BoolParam, EnumParam, IntParam, StrParam

if TYPE_CHECKING:
    from jitgraph.config.core import Config

_NO_CUDNN = "jitgraph has no cuDNN ops; convolutions use its own kernels"
_OLD_GPU = "it configured Theano's old CUDA back-end (removed in Theano 1.0); jitgraph uses CuPy"
_NO_C = "jitgraph generates Numba kernels, not C modules compiled and linked by g++"
_NO_BUG = "jitgraph never had this Theano bug, so there is nothing to warn about"

#: Every value of warn.ignore_bug_before that any Theano version accepted.
_BUG_VERSIONS = ("0.3", "0.4", "0.4.1", "0.5", "0.6", "0.7", "0.8", "0.8.1", "0.8.2", "0.9",
                 "0.10", "1.0", "1.0.1", "1.0.2", "1.0.3", "1.0.4", "1.0.5")

#: Theano's "this result was wrong before version X" flags, with the version that fixed the bug
#: (None: the bug was never released, the flag defaults to False).
_BUG_FLAGS = {
    "argmax_pushdown_bug": ("0.3", "the argmax pushdown rewrite"),
    "gpusum_01_011_0111_bug": ("0.3", "GPU sums over patterns 01/011/0111 of big first dims"),
    "sum_sum_bug": ("0.3", "two consecutive sums"),
    "sum_div_dimshuffle_bug": ("0.3", "sums of divisions of dimshuffled tensors"),
    "subtensor_merge_bug": ("0.5", "indexing a subtensor with a negative step"),
    "gpu_set_subtensor1": ("0.6", "GPU set_subtensor with an integer vector index"),
    "vm_gc_bug": (None, "the VM garbage collector (development versions of July 2012)"),
    "signal_conv2d_interface": ("0.7", "the changed interface of signal.conv2d"),
    "reduce_join": ("0.7", "reductions of a join over a non-zero axis"),
    "inc_set_subtensor1": ("0.7", "inc/set_subtensor with advanced integer indexing"),
    "identify_1pexp_bug": ("0.5", "is_1pexp in the softplus rewrites"),
    "round": ("0.9", "round() now rounds half to even, like NumPy"),
    "inc_subtensor1_opt": ("0.10", "the inc_subtensor1 rewrite"),
}


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def _tombstone_home(value: str) -> str:
    if value:
        raise ValueError(
            "the home flag was removed in Theano 0.5; set base_compiledir instead "
            f"(e.g. base_compiledir={value.rstrip('/')}/.jitgraph)"
        )
    return value


def register_legacy_flags(cfg: Config) -> None:
    """Register the ignored flags (GPU back-end, cuDNN, BLAS, C compilation, bug warnings...)."""
    add = cfg.add
    add(StrParam(
        "home", "",
        "Removed in Theano 0.5: setting it to a non-empty value is an error that tells you to "
        "set base_compiledir instead.",
        validator=_tombstone_home, read_only=True, allowed_text="'' only",
    ))
    add(BoolParam(
        "pycuda.init", False, "Initialise PyCUDA before the GPU (old PyCUDA versions needed it).",
        ignored_reason="jitgraph does not use PyCUDA; CuPy initialises the GPU",
    ))
    add(BoolParam(
        "enable_initial_driver_test", True, "Test the NVIDIA driver when a GPU is initialised.",
        ignored_reason=_OLD_GPU,
    ))
    add(BoolParam(
        "gpuelemwise.sync", True, "Wait for each GPU elementwise kernel and check its error code.",
        ignored_reason=_OLD_GPU + "; see gpuarray.sync",
    ))
    add(StrParam(
        "nvcc.compiler_bindir", "", "Folder where nvcc looks for the host g++/gcc.",
        ignored_reason="NVRTC compiles device code only and needs no host compiler",
    ))
    add(StrParam(
        "cublas.lib", "cublas", "Name of the cuBLAS library to link.",
        ignored_reason="CuPy loads cuBLAS itself",
    ))
    add(EnumParam(
        "gpuarray.sched", "default", "libgpuarray's scheduling policy.",
        choices=("default", "multi", "single"),
        ignored_reason="a libgpuarray setting; jitgraph schedules GPU work with CuPy streams",
    ))
    add(BoolParam(
        "lib.amdlibm", False, "Use AMD's libm in compiled C code.",
        ignored_reason="Numba uses LLVM's math intrinsics; AMD libm cannot be linked in",
    ))
    add(StrParam(
        "blas.ldflags", "",
        "Linker flags of the BLAS library for C code. Default empty (Theano 1.0 auto-detected "
        "it; the 0.7 docs said -lblas).",
        ignored_reason="Numba calls the BLAS that NumPy/SciPy ship; nothing is linked",
    ))
    add(BoolParam(
        "blas.check_openmp", True, "Check for the MKL/OpenMP conflict of C BLAS code.",
        ignored_reason=_NO_C,
    ))
    add(BoolParam(
        "cmodule.mac_framework_link", False, "Link C modules with -framework on macOS.",
        ignored_reason=_NO_C,
    ))
    add(BoolParam(
        "cache_optimizations", False,
        "An unfinished Theano cache of rewritten graphs (it never worked).",
        ignored_reason="it never worked in Theano and jitgraph has no such cache",
    ))
    add(BoolParam(
        "experimental.mrg", False, "Another random generator that works on the GPU.",
        ignored_reason="jitgraph's random streams work on both devices",
    ))
    add(BoolParam(
        "experimental.unpickle_gpu_on_cpu", False,
        "Unpickle old-back-end GPU arrays as NumPy arrays.", ignored_reason=_OLD_GPU,
    ))
    add(BoolParam(
        "experimental.local_alloc_elemwise", True,
        "Deprecated switch of the alloc/elemwise rewrite (Theano required True; use "
        "optimizer_excluding=local_alloc_elemwise).",
        ignored_reason="use optimizer_excluding=local_alloc_elemwise to disable that rewrite",
    ))
    add(IntParam(
        "tensor.insert_inplace_optimizer_validate_nb", -1,
        "How often Theano's in-place rewriter validated the graph (-1 automatic).",
        ignored_reason="jitgraph's in-place pass has its own validation schedule",
    ))
    add(IntParam(
        "metaopt.verbose", 0,
        "Verbosity of the cuDNN meta-optimizer: 0 silent, 1 warnings, 2 full (a boolean in "
        "Theano 0.8; True/False are accepted as 1/0).",
        bool_strings=True, min=0, max=2, ignored_reason=_NO_CUDNN,
    ))
    for kind in ("excluding", "including"):
        add(StrParam(
            f"metaopt.optimizer_{kind}", "", f"Meta-optimizer tags {kind} (':'-separated).",
            ignored_reason=_NO_CUDNN,
        ))
    add(BoolParam(
        "conv.assert_shape", False, "AbstractConv ops check user-given shapes at run time.",
    ))
    add(StrParam(
        "ctc.root", "", "Folder of the warp-ctc library.",
        read_only=True, ignored_reason="jitgraph has no warp-ctc op",
    ))
    add(BoolParam(
        "magma.enabled", False, "Use the MAGMA library for GPU linear algebra.",
        ignored_reason="jitgraph does not use MAGMA",
    ))
    for name in ("include_path", "library_path"):
        add(StrParam(f"magma.{name}", "", f"MAGMA {name.replace('_', ' ')}.",
                     ignored_reason="jitgraph does not use MAGMA"))
    _register_dnn_flags(cfg)
    _register_warn_flags(cfg)


def _register_dnn_flags(cfg: Config) -> None:
    add = cfg.add
    meta = ("guess_once", "guess_on_shape_change", "time_once", "time_on_shape_change")
    add(EnumParam(
        "dnn.enabled", "auto", "Use cuDNN: auto, True, False, no_check.",
        choices=("auto", "True", "False", "no_check"), ignored_reason=_NO_CUDNN,
    ))
    for name in ("include_path", "library_path", "bin_path", "base_path"):
        add(StrParam(
            f"dnn.{name}", "",
            f"cuDNN {name.replace('_', ' ')}. Default empty (Theano derived it from cuda.root).",
            ignored_reason=_NO_CUDNN,
        ))
    add(EnumParam(
        "dnn.conv.algo_fwd", "small", "cuDNN forward convolution algorithm.",
        choices=("small", "none", "large", "fft", "fft_tiling", "winograd", "winograd_non_fused",
                 *meta),
        ignored_reason=_NO_CUDNN,
    ))
    add(EnumParam(
        "dnn.conv.algo_bwd_data", "none", "cuDNN convolution gradient algorithm (inputs).",
        choices=("none", "deterministic", "fft", "fft_tiling", "winograd", "winograd_non_fused",
                 *meta),
        ignored_reason=_NO_CUDNN,
    ))
    add(EnumParam(
        "dnn.conv.algo_bwd_filter", "none", "cuDNN convolution gradient algorithm (filters).",
        choices=("none", "deterministic", "fft", "small", "fft_tiling", "winograd_non_fused",
                 *meta),
        ignored_reason=_NO_CUDNN,
    ))
    add(EnumParam(
        "dnn.conv.precision", "as_input_f32",
        "Precision of cuDNN convolutions. Default as_input_f32 (Theano 1.0; 0.8 had as_input).",
        choices=("as_input_f32", "as_input", "float16", "float32", "float64"),
        ignored_reason=_NO_CUDNN,
    ))
    for name, use in (("workmem", "dnn.conv.algo_fwd"), ("workmem_bwd", "dnn.conv.algo_bwd_*"),
                      ("algo_bwd", "dnn.conv.algo_bwd_data and dnn.conv.algo_bwd_filter")):
        add(StrParam(
            f"dnn.conv.{name}", "",
            f"Deprecated in Theano 0.8 (use {use}); Theano 0.7 accepted none/small/large.",
            read_only=True, ignored_reason=_NO_CUDNN,
        ))


def _warn_default(fixed_in: str | None, cfg: Config) -> bool:
    """Theano's rule: warn about a bug fixed after the version set in warn.ignore_bug_before."""
    if fixed_in is None:
        return False
    first: str = cfg.get("warn.ignore_bug_before")
    if first in ("None", "all"):
        return first == "None"
    return _version_tuple(first) < _version_tuple(fixed_in)


def _register_warn_flags(cfg: Config) -> None:
    add = cfg.add
    add(EnumParam(
        "warn.ignore_bug_before", "0.9",
        "Theano printed warnings where old versions gave wrong results; this set the first "
        "version you used ('None': all warnings, 'all': none). It only sets the defaults of the "
        "warn.* flags below. Default 0.9 (Theano 1.0; the 0.7 docs said 0.6). Accepted "
        "silently, because Theano's docs told everyone to put it in their .theanorc.",
        choices=("None", "all", *_BUG_VERSIONS), read_only=True,
    ))
    for name, (fixed_in, what) in _BUG_FLAGS.items():
        when = f"before {fixed_in}" if fixed_in else "in unreleased versions"
        add(BoolParam(
            f"warn.{name}",
            lambda fixed_in=fixed_in: _warn_default(fixed_in, cfg),
            f"Warn where Theano {when} gave wrong results: {what}.",
            ignored_reason=_NO_BUG,
        ))
