"""Flags of the profiler, DebugMode, NanGuardMode and the old ProfileMode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jitgraph.config.params import BoolParam, EnumParam, IntParam, StrParam

if TYPE_CHECKING:
    from jitgraph.config.core import Config

_PREALLOCATED_KINDS = (
    "initial", "previous", "c_contiguous", "f_contiguous", "strided", "wrong_size", "ALL",
)


def _check_preallocated(value: str) -> str:
    bad = [kind for kind in value.split(":") if kind and kind not in _PREALLOCATED_KINDS]
    if bad:
        raise ValueError(f"unknown kind(s) {bad}")
    return value


def register_debug_flags(cfg: Config) -> None:
    """profile*, profiling.*, ProfileMode.*, DebugMode.*, NanGuardMode.*."""
    add = cfg.add
    add(BoolParam(
        "profile", False,
        "Profile every compiled function (time per node and per op) and print the profiles at "
        "exit to profiling.destination.",
    ))
    add(BoolParam(
        "profile_memory", False, "Also profile memory use (needs profile=True).",
    ))
    add(BoolParam(
        "profile_optimizer", False,
        "Also profile the rewrites at compile time (needs profile=True).",
    ))
    add(BoolParam(
        "profiling.time_thunks", True,
        "Time each node separately (more precise per-node times, a little overhead).",
    ))
    add(IntParam(
        "profiling.n_apply", 20, "Number of nodes (Apply) listed in profiles.",
        min=0, min_strict=True,
    ))
    add(IntParam(
        "profiling.n_ops", 20, "Number of ops listed in profiles.", min=0, min_strict=True,
    ))
    add(IntParam(
        "profiling.output_line_width", 512, "Maximum line width of profile output.",
        min=0, min_strict=True,
    ))
    add(IntParam(
        "profiling.min_memory_size", 1024,
        "Memory profile: do not list nodes whose outputs take fewer bytes than this.",
        min=0,
    ))
    add(BoolParam(
        "profiling.min_peak_memory", False,
        "Memory profile: also compute the smallest peak memory any node order could reach "
        "(needs profile=True and profile_memory=True; slow for big graphs).",
    ))
    add(StrParam(
        "profiling.destination", "stderr",
        "Where profiles are written: 'stderr', 'stdout', or the name of a file to create.",
    ))
    add(BoolParam(
        "profiling.debugprint", False, "Also debugprint each profiled function's graph.",
    ))
    add(BoolParam(
        "profiling.ignore_first_call", False,
        "Leave the first call of each function out of the profile (it includes warm-up).",
    ))
    add(IntParam(
        "ProfileMode.n_apply_to_print", 15,
        "Nodes listed by mode=ProfileMode (removed in Theano 0.9; jitgraph runs it as FAST_RUN "
        "with profile=True and uses this instead of profiling.n_apply).",
        min=0, min_strict=True,
    ))
    add(IntParam(
        "ProfileMode.n_ops_to_print", 20, "Ops listed by mode=ProfileMode.",
        min=0, min_strict=True,
    ))
    add(IntParam(
        "ProfileMode.min_memory_size", 1024,
        "mode=ProfileMode: do not list nodes whose outputs take fewer bytes than this.",
        min=0,
    ))
    add(BoolParam(
        "ProfileMode.profile_memory", False, "mode=ProfileMode also profiles memory.",
    ))
    add(IntParam(
        "DebugMode.patience", 10,
        "How many times DebugMode rewrites the graph to detect rewrites that depend on order.",
        min=0, min_strict=True,
    ))
    add(BoolParam(
        "DebugMode.check_c", lambda: bool(cfg.get("cxx")),
        "DebugMode runs the compiled (Numba/CuPy) kernels and compares them with the NumPy "
        "reference. Default: True unless cxx is empty (Theano 1.0 rule).",
    ))
    add(BoolParam(
        "DebugMode.check_py", True, "DebugMode runs the NumPy perform() implementations.",
    ))
    add(BoolParam(
        "DebugMode.check_finite", True, "DebugMode complains about NaN and Inf in results.",
    ))
    add(IntParam(
        "DebugMode.check_strides", 0,
        "When compiled and NumPy results have different strides: 0 ignore, 1 warn, 2 raise.",
        min=0, max=2,
    ))
    add(BoolParam(
        "DebugMode.warn_input_not_reused", True,
        "Warn when an op declared in-place (destroy_map/view_map) did not reuse its input.",
    ))
    add(StrParam(
        "DebugMode.check_preallocated_output", "",
        "Also run each node with output buffers preallocated in these ways (':'-separated): "
        "initial, previous, c_contiguous, f_contiguous, strided, wrong_size, ALL. Empty: off.",
        validator=_check_preallocated,
        allowed_text="'' or ':'-separated " + ", ".join(_PREALLOCATED_KINDS),
    ))
    add(IntParam(
        "DebugMode.check_preallocated_output_ndim", 4,
        "With 'strided' preallocated outputs, try all stride patterns over this many inner "
        "dimensions (keep at least 2).",
        min=0, min_strict=True,
    ))
    add(BoolParam("NanGuardMode.nan_is_error", True, "NanGuardMode reports NaN values."))
    add(BoolParam("NanGuardMode.inf_is_error", True, "NanGuardMode reports Inf values."))
    add(BoolParam(
        "NanGuardMode.big_is_error", True, "NanGuardMode reports values with |x| > 1e10.",
    ))
    add(EnumParam(
        "NanGuardMode.action", "raise",
        "What NanGuardMode does on a bad value: raise (AssertionError), warn (log an error and "
        "go on), or pdb.",
        choices=("raise", "warn", "pdb"),
    ))
