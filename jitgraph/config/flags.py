"""Registration of every flag, and ``build_config`` which makes a ready ``Config``.

The flags are split by concept: this module holds the graph, typing and compilation-mode flags;
``flags_backend`` the devices, compilers and compile directories; ``flags_debug`` DebugMode,
NanGuardMode and the profiler; ``flags_legacy`` the Theano flags that jitgraph accepts but ignores.

Compatibility rule, applied everywhere: when Theano versions (and the seed documents, which are
Theano 0.7-era pages) disagree, the **default is Theano 1.0's** and **every value any version
accepted is accepted**. Each place where that differs from the seed docs says so in the doc.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jitgraph.config import flags_backend, flags_debug, flags_legacy
from jitgraph.config.flags_backend import omp_num_threads
from jitgraph.config.params import (
    BoolParam,
    EnumParam,
    FloatParam,
    IntParam,
    ModeParam,
    OptionalBoolParam,
    StrParam,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from jitgraph.config.core import Config

_ACTIONS = ("ignore", "warn", "raise", "pdb")
_TEST_VALUE_MODES = ("off", "ignore", "warn", "raise", "pdb")
_SETERR = ("ignore", "warn", "raise", "call", "print", "log", "None")
_TAGS_DOC = (
    "Tags are separated by ':'. Read once when the default mode is built, hence read-only."
)


def register_general_flags(cfg: Config) -> None:
    """Types and casting, compilation modes, rewrites, error handling, NumPy error state."""
    add = cfg.add
    add(EnumParam(
        "floatX", "float64",
        "Default float dtype of tensor.matrix(), tensor.vector(), ... and of Python float "
        "constants. Theano 1.0's shorthands '64', '32', '16' are accepted and stored as the full "
        "name. float16 support is limited (the Theano 0.7 docs listed only float64/float32).",
        choices=("float64", "float32", "float16"),
        aliases={"64": "float64", "32": "float32", "16": "float16"},
        in_code_key=True,
    ))
    add(EnumParam(
        "warn_float64", "ignore",
        "What to do when a float64 tensor variable is created (helps to find unwanted upcasts "
        "when floatX=float32): ignore, warn, raise, or drop into pdb.",
        choices=_ACTIONS,
    ))
    add(EnumParam(
        "cast_policy", "custom",
        "How dtypes of constants and arithmetic results are inferred: 'custom' (Theano's rules) "
        "or 'numpy+floatX' (NumPy's rules, but Python floats become floatX). Not in the code key: "
        "it changes graph dtypes, which every kernel key already contains.",
        choices=("custom", "numpy+floatX"),
    ))
    add(EnumParam(
        "int_division", "int",
        "x / y with two integer scalars (theano.scalar) or through T.div_proxy: 'int' gives "
        "an integer (deprecated Python 2 rule), 'floatX' a float of dtype floatX, 'raise' an "
        "error (use //). '/' on tensors is true division whatever this says, as in Theano 1.0 "
        "under Python 3. Not in the code key: it changes graph dtypes only.",
        choices=("int", "raise", "floatX"),
    ))
    add(EnumParam(
        "deterministic", "default",
        "'more' makes the GPU back-end pick kernels that give bit-identical results between runs "
        "(no atomics in scatter-add and reductions), even when slower. In the code key because it "
        "selects a different kernel for the same op.",
        choices=("default", "more"),
        in_code_key=True,
    ))
    add(ModeParam(
        "mode", "Mode",
        "Default compilation mode of jitgraph.function. 'Mode' means linker + optimizer from the "
        "flags below (same as FAST_RUN with the defaults). DEBUG_MODE is DebugMode and "
        "PROFILE_MODE is ProfileMode; ProfileMode (removed in Theano 0.9) runs as FAST_RUN with "
        "profile=True. Case-sensitive, as in Theano's config.",
        choices=("Mode", "FAST_RUN", "FAST_COMPILE", "DebugMode", "DEBUG_MODE", "NanGuardMode",
                 "ProfileMode", "PROFILE_MODE"),
    ))
    add(EnumParam(
        "linker", "cvm",
        "Default linker when mode=Mode. jitgraph meaning: 'cvm'/'vm' run the graph with a VM that "
        "calls one Numba (CPU) or CuPy (GPU) kernel per node or fused group; 'c' compiles the "
        "whole graph into one kernel and fails if an op has no kernel; 'c|py' uses kernels where "
        "they exist and NumPy perform() elsewhere; 'py' uses NumPy perform() only. The '_nogc' "
        "variants keep intermediate buffers between calls. Default 'cvm' (Theano 1.0; the 0.7 "
        "docs said 'c|py').",
        choices=("cvm", "cvm_nogc", "vm", "vm_nogc", "c|py", "c|py_nogc", "c", "py"),
    ))
    add(EnumParam(
        "optimizer", "o4",
        "Default rewrite level when mode=Mode: None (no rewrites), merge, o1 = fast_compile, o2, "
        "o3, o4 = fast_run, unsafe (o4 without safety checks), stabilize (only the stability "
        "rewrites). Default 'o4' (Theano 1.0; the 0.7 docs said 'fast_run', the same rewrites).",
        choices=("o4", "o3", "o2", "o1", "unsafe", "fast_run", "fast_compile", "merge", "None",
                 "stabilize"),
    ))
    add(BoolParam(
        "allow_gc", True,
        "Free intermediate results as soon as they are no longer needed. False keeps the buffers "
        "between calls: faster for graphs of many small ops, but uses more memory.",
    ))
    for kind in ("excluding", "including", "requiring"):
        verb = {"excluding": "removed from", "including": "added to",
                "requiring": "required of"}[kind]
        add(StrParam(
            f"optimizer_{kind}", "",
            f"Rewrite tags {verb} the default mode's optimizer. {_TAGS_DOC}",
            read_only=True,
        ))
    add(BoolParam("optimizer_verbose", False, "Print every rewrite that is applied."))
    add(EnumParam(
        "on_opt_error", "warn",
        "When a rewrite crashes: warn and skip it, raise, drop into pdb, or ignore silently "
        "('ignore' was added in Theano 0.8; only for testing).",
        choices=("warn", "raise", "pdb", "ignore"),
    ))
    add(EnumParam(
        "on_shape_error", "warn",
        "When shape inference of a node fails: warn and use a default, or raise.",
        choices=("warn", "raise"),
    ))
    add(EnumParam(
        "on_unused_input", "raise",
        "What jitgraph.function does with an input that the outputs do not depend on.",
        choices=("raise", "warn", "ignore"),
    ))
    add(EnumParam(
        "compute_test_value", "off",
        "If not 'off', run each op on the inputs' tag.test_value while the graph is built, to "
        "catch shape and type errors early. The value says what to do when an input has no test "
        "value: ignore (skip), warn, raise, or pdb ('pdb' is missing from the 0.7 docs only).",
        choices=_TEST_VALUE_MODES,
    ))
    add(EnumParam(
        "compute_test_value_opt", "off",
        "Like compute_test_value, but during rewriting (to debug rewrites).",
        choices=_TEST_VALUE_MODES,
    ))
    add(BoolParam(
        "print_test_value", False,
        "Include a variable's test value (when there is one) in its str().",
    ))
    add(BoolParam(
        "pickle_test_value", True,
        "Keep tag.test_value when pickling variables.",
    ))
    add(BoolParam(
        "unpickle_function", True,
        "Unpickle compiled functions; False replaces them by None (to load old pickles that "
        "contain functions that cannot be rebuilt).",
    ))
    add(BoolParam(
        "reoptimize_unpickled_function", False,
        "Re-run the rewrites when a pickled function is loaded, instead of reusing the pickled "
        "rewritten graph. Default False (Theano 1.0; the 0.7 docs and code said True).",
    ))
    add(EnumParam(
        "exception_verbosity", "low",
        "'low': errors name nodes briefly; 'high': errors include a debugprint of the graph "
        "around the failing node. 'medium' (PyTensor) is accepted and treated as 'high'.",
        choices=("low", "medium", "high"),
    ))
    add(IntParam(
        "traceback.limit", 8,
        "Stack levels kept on each variable to show where it was created; -1 (any negative "
        "value) keeps all.",
    ))
    add(IntParam(
        "traceback.compile_limit", 0,
        "Stack levels kept for variables created during compilation (rewrites); -1 (any "
        "negative value) keeps all.",
    ))
    add(OptionalBoolParam(
        "vm.lazy", None,
        "VM linkers only. None: use lazy evaluation (for ifelse) only when the graph needs it; "
        "True/False force it on or off.",
    ))
    add(EnumParam(
        "cycle_detection", "regular",
        "'regular' allows most in-place rewrites but compiles slower on big graphs; 'fast' "
        "allows fewer in-place rewrites and compiles faster.",
        choices=("regular", "fast"),
    ))
    add(EnumParam(
        "check_stack_trace", "off",
        "Check that rewrites copy the stack trace to the variables they create: off, log "
        "(insert a placeholder trace), warn (and warn), raise.",
        choices=("off", "log", "warn", "raise"),
    ))
    add(EnumParam(
        "assert_no_cpu_op", "ignore",
        "With a GPU device: what to do if a compiled graph still contains CPU ops.",
        choices=_ACTIONS,
    ))
    add(BoolParam(
        "print_global_stats", False,
        "Print global statistics (compile and run times of all functions) at exit.",
    ))
    add(FloatParam(
        "optdb.position_cutoff", float("inf"),
        "Stop the rewrite database after this position (for bisecting rewrite bugs).",
    ))
    add(FloatParam(
        "optdb.max_use_ratio", 8.0,
        "Limit of the fixed-point rewriter: at most ratio * number of nodes rewrites per pass, "
        "to stop infinite loops. Default 8 (Theano 1.0; 0.8 used 5).",
    ))
    add(IntParam(
        "tensor.cmp_sloppy", 0,
        "Tolerance of the tests' allclose: 0 strict, 1 relaxed, 2 more relaxed.",
        min=0, max=2, read_only=True,
    ))
    add(BoolParam(
        "tensor.local_elemwise_fusion", True,
        "Fuse chains of elementwise ops into one CPU kernel in fast_run.",
    ))
    add(BoolParam(
        "gpu.local_elemwise_fusion", True,
        "Fuse chains of elementwise ops into one GPU kernel in fast_run.",
    ))
    add(BoolParam(
        "experimental.local_alloc_elemwise_assert", True,
        "When the alloc/elemwise rewrite cannot prove that shapes match, insert an assert so "
        "that shape errors in user code are not hidden (removing it is faster).",
    ))
    add(BoolParam("scan.allow_gc", False, "Free intermediate results inside scan's inner loop."))
    add(BoolParam(
        "scan.allow_output_prealloc", True,
        "Let scan preallocate the memory of its outputs (faster, a little more memory).",
    ))
    add(BoolParam("scan.debug", False, "Print debug information while scan runs."))
    add(EnumParam(
        "numpy.seterr_all", "ignore",
        "NumPy floating-point error handling (numpy.seterr) applied with numpy.errstate around "
        "each jitgraph function call, never process-wide (Theano called numpy.seterr at import). "
        "'None' leaves NumPy's setting alone. The per-kind flags below override it.",
        choices=_SETERR, read_only=True,
    ))
    for kind, what in (("divide", "division by zero"), ("over", "overflow"),
                       ("under", "underflow"), ("invalid", "invalid operations")):
        add(EnumParam(
            f"numpy.seterr_{kind}", "None",
            f"NumPy's handling of floating-point {what} during jitgraph calls; 'None' means "
            "use numpy.seterr_all.",
            choices=("None", *_SETERR[:-1]), read_only=True,
        ))
    add(StrParam(
        "unittests.rseed", "666",
        "Seed of jitgraph's randomized tests; 'random' means a new seed each run.",
    ))


def register_all_flags(cfg: Config) -> None:
    """Register every jitgraph flag on ``cfg``, in the order ``print(config)`` shows them."""
    register_general_flags(cfg)
    flags_backend.register_backend_flags(cfg)
    flags_debug.register_debug_flags(cfg)
    flags_legacy.register_legacy_flags(cfg)


def build_config(environ: Mapping[str, str] | None = None) -> Config:
    """A ``Config`` with every flag registered and resolved from ``environ`` (default
    ``os.environ``): its ``THEANO_FLAGS``/``JITGRAPH_FLAGS`` and its rc files.

    Raises ``ConfigError`` for a bad value or a bad rc file; warns about unknown flags.
    """
    from jitgraph.config.core import Config

    cfg = Config(environ)
    register_all_flags(cfg)
    omp_num_threads(cfg.environ)  # Theano failed at import on a bad OMP_NUM_THREADS, so do we
    cfg.warn_unknown_flags()
    return cfg
