"""Flags of devices, code generation, compilers and compile directories.

jitgraph has no C toolchain: Theano's compiler flags keep their names and are mapped onto Numba
(CPU) and NVRTC through CuPy (GPU). Each doc says what the flag means in jitgraph.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from jitgraph.config import paths
from jitgraph.config.params import (
    BoolParam,
    ConfigError,
    DeviceParam,
    EnumParam,
    FloatParam,
    IntParam,
    PathParam,
    StrParam,
    parse_device,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from jitgraph.config.core import Config


def omp_num_threads(environ: Mapping[str, str]) -> int | None:
    """The thread count from ``OMP_NUM_THREADS`` (``None`` when unset or empty).

    OpenMP allows a comma-separated list for nested levels (``"8,1"``); the first item is the
    count. Anything that is not a positive integer raises ``ConfigError`` (Theano raised a bare
    ``TypeError`` at import).
    """
    text = environ.get("OMP_NUM_THREADS", "").strip()
    if not text:
        return None
    first = text.split(",")[0].strip()
    if first.isascii() and first.isdigit() and int(first) > 0:
        return int(first)
    raise ConfigError(
        f"The environment variable OMP_NUM_THREADS={text!r} is not a positive integer. It sets "
        "the number of threads of parallel kernels (openmp flag); unset it or set e.g. "
        "OMP_NUM_THREADS=4."
    )


def _check_nvcc_flags(value: str) -> str:
    tokens = value.split()
    bad = [t for t in tokens if not t.startswith("-")]
    if bad:
        raise ValueError(
            f"every option must start with '-' (got {bad}); write an option and its value as "
            "one token, e.g. '--gpu-architecture=sm_80', not '--gpu-architecture sm_80'"
        )
    return " ".join(tokens)


def _check_contexts(value: str) -> str:
    for item in filter(None, value.split(";")):
        name, sep, dev = item.partition("->")
        if not sep or not name or not dev:
            raise ValueError(f"{item!r} is not of the form 'name->device'")
        if name == "cpu" or name.startswith(("cuda", "opencl", "gpu")):
            raise ValueError(f"{name!r} is not a valid context name (cpu/cuda*/opencl* reserved)")
        parse_device(dev)
    return value


def register_backend_flags(cfg: Config) -> None:
    """Devices, cxx/gcc/cmodule (Numba), nvcc/cuda/gpuarray (CuPy), compile dirs and locks."""
    add = cfg.add
    env = cfg.environ
    add(DeviceParam(
        "device", "cpu",
        "Default device for computations and shared variables: cpu, cuda (the driver picks a "
        "GPU), cudaN. The old Theano back-end names gpu/gpuN are accepted and mean cuda/cudaN "
        "(Theano 1.0 rejected them; the seeds use them). OpenCL forms are accepted for old rc "
        "files but jitgraph has no OpenCL back-end. Lower case only.",
        read_only=True,
    ))
    add(BoolParam(
        "force_device", False,
        "If the requested GPU cannot be used: True raises an error, False warns and uses the CPU.",
        read_only=True,
    ))
    add(DeviceParam(
        "init_gpu_device", "",
        "Initialise this GPU without moving computations or shared variables to it (for "
        "GPU-specific tests). Needs device=cpu. Same forms as device, or empty.",
        allow_cpu=False, allow_empty=True, read_only=True,
    ))
    add(BoolParam(
        "print_active_device", True, "Print the GPU's name when it is initialised.",
        read_only=True,
    ))
    add(StrParam(
        "contexts", "",
        "Named GPU contexts for multi-GPU graphs: 'name->device;name2->device2', e.g. "
        "'dev0->cuda0;dev1->cuda1'. The names cpu, cuda*, opencl*, gpu* are reserved.",
        validator=_check_contexts, read_only=True,
        allowed_text="'' or 'name->device;name2->device2'",
    ))
    add(StrParam(
        "cxx", "numba",
        "Theano's C++ compiler, mapped: jitgraph compiles CPU kernels with Numba. The empty "
        "string disables compiled code (NumPy perform() only, like Theano without g++); any other "
        "value (an old rc file's '/usr/bin/g++' included) enables Numba. Default 'numba' "
        "(Theano detected g++).",
        in_code_key=True,
    ))
    add(StrParam(
        "gcc.cxxflags", "",
        "Theano's extra g++ flags, mapped onto Numba/LLVM: -O0..-O3 set the LLVM optimisation "
        "level, -ffast-math turns on fastmath, -march=CPU/-mcpu=CPU set the target CPU "
        "(native by default), -g adds debug info. Other tokens are ignored with a warning at "
        "compile time.",
        in_code_key=True,
    ))
    add(BoolParam(
        "openmp", False,
        "Let CPU kernels run in parallel (Numba prange) when the data has at least "
        "openmp_elemwise_minsize elements. Threads: OMP_NUM_THREADS if set (it must be a positive "
        "integer), else Numba's default. Default False (Theano computed it and then forced "
        "False).",
        in_code_key=True,
    ))
    add(IntParam(
        "openmp_elemwise_minsize", 200000,
        "Minimum number of elements for which a parallel elementwise kernel uses threads when "
        "openmp=True; 0 or less always uses them (Theano did not check the value).",
        in_code_key=True,
    ))
    add(BoolParam(
        "check_input", True,
        "Generated kernels check the dtypes and ranks of their inputs. False removes the checks "
        "(less overhead for scalars, wrong input crashes).",
        in_code_key=True,
    ))
    add(BoolParam(
        "nocleanup", False,
        "Keep the generated source of kernels that failed to compile, for debugging.",
    ))
    add(BoolParam(
        "cmodule.warn_no_version", False,
        "Warn when a kernel cannot be cached on disk because an op has no cache version.",
    ))
    add(BoolParam(
        "cmodule.remove_gxx_opt", False,
        "Compile kernels without optimisation (Numba/LLVM opt level 0), for debugging.",
        in_code_key=True,
    ))
    add(BoolParam(
        "cmodule.compilation_warning", False,
        "Show the warnings that Numba or NVRTC emit while compiling kernels.",
    ))
    add(BoolParam(
        "cmodule.preload_cache", False,
        "Load the on-disk kernel cache index when the first function is compiled instead of "
        "looking up keys one by one.",
        read_only=True,
    ))
    add(IntParam(
        "cmodule.age_thresh_use", 60 * 60 * 24 * 24,
        "Seconds (default 24 days) after which a cached kernel that was not used is not reused; "
        "it is deleted 7 days later.",
        read_only=True,
    ))
    add(BoolParam(
        "cmodule.debug", False,
        "Compile kernels with debug info and bounds checks (Numba debug=True, "
        "boundscheck=True; Theano defined -DDEBUG).",
        in_code_key=True,
    ))
    add(IntParam(
        "compile.wait", 5,
        "Seconds between attempts to take the compile-directory lock; the actual wait is random "
        "between wait and 2*wait.",
        min=0, min_strict=True, read_only=True,
    ))
    add(IntParam(
        "compile.timeout", lambda: cfg.get("compile.wait") * 24,
        "Seconds after which a lock that its owner has not refreshed is considered stale and "
        "taken over (default compile.wait * 24). 0 takes over at once.",
        min=0, read_only=True,
    ))
    add(PathParam(
        "base_compiledir", lambda: paths.default_base_compiledir(env),
        "Root of the platform-specific compile directories (default ~/.jitgraph; on Windows "
        "%LOCALAPPDATA%\\jitgraph). Nothing is created until the first compile.",
        read_only=True,
    ))
    add(StrParam(
        "compiledir_format", paths.DEFAULT_COMPILEDIR_FORMAT,
        "Name of the compile directory inside base_compiledir, a %-format string; runs of "
        "parentheses, commas and spaces in the result become '_'. Default uses short_platform "
        "(Theano 1.0; the 0.7 docs showed platform). Keys:\n" + paths.describe_keys(),
        validator=paths.check_compiledir_format, read_only=True,
        allowed_text="a %-format string using the keys listed in its doc",
    ))
    add(PathParam(
        "compiledir", lambda: paths.default_compiledir(cfg),
        "Folder of the compiled kernel cache (default base_compiledir/<compiledir_format>). "
        "Created with mode 0o700 at the first compile, never at import.",
        read_only=True,
    ))
    add(EnumParam(
        "compiledir_trust", "owner",
        "Whose writing jitgraph trusts in the compiledir, which holds code it runs (generated "
        "modules, native objects, pickled graphs). 'owner' (like ssh with ~/.ssh): load only "
        "folders and files owned by you (or root) that no other user can write (group-writable "
        "is accepted for your private group), from a compiledir whose parent folders only you "
        "or root can change (sticky folders such as /tmp are fine); anything else is refused, "
        "naming the path and the fix. 'group': a cache shared by a team through a group; files "
        "of any owner and group-writable ones are loaded (every member of the group can run "
        "code in your process), world-writable ones are still refused. 'any': no check "
        "(every user who can write the compiledir is trusted). See docs/cache.md.",
        choices=("owner", "group", "any"), read_only=True,
    ))
    add(BoolParam(
        "nvcc.fastmath", False,
        "Compile GPU kernels with NVRTC's --use_fast_math (faster division, sqrt and "
        "transcendentals, less precise, denormals flushed to zero).",
        in_code_key=True,
    ))
    add(StrParam(
        "nvcc.flags", "",
        "Extra NVRTC options for GPU kernels, separated by spaces; each must start with '-' "
        "(write '--opt=value', not '--opt value'), e.g. '-lineinfo --fmad=false'.",
        validator=_check_nvcc_flags, in_code_key=True,
        allowed_text="space-separated NVRTC options, each starting with '-'",
    ))
    add(PathParam(
        "cuda.root", lambda: env.get("CUDA_ROOT") or env.get("CUDA_PATH") or "",
        "CUDA installation folder (bin/, lib/, include/), used to find NVRTC's headers when CuPy "
        "does not; empty lets CuPy find CUDA. Default $CUDA_ROOT, else $CUDA_PATH (Theano 1.0), "
        "else empty (the 0.7 docs said /usr/local/cuda).",
        allow_empty=True,
    ))
    add(FloatParam(
        "gpuarray.preallocate", 0.0,
        "CuPy memory pool: < 0 disables the pool (every allocation goes to the driver); 0 uses "
        "the pool without preallocating; 0 < N <= 1 preallocates that fraction of the GPU "
        "memory (clipped to 0.95); N > 1 preallocates N megabytes.",
        read_only=True,
    ))
    add(FloatParam(
        "lib.cnmem", 0.0,
        "Old back-end name of gpuarray.preallocate (Theano 0.8-0.9): 0 off, 0 < N <= 1 a "
        "fraction of the GPU memory, N > 1 megabytes. Used when gpuarray.preallocate is 0.",
        min=0, read_only=True,
    ))
    add(BoolParam(
        "gpuarray.sync", False,
        "Synchronise the GPU after every op, so that profiles show each op's real time (slow). "
        "Theano 0.9 meaning; Theano 1.0 had removed it.",
        read_only=True,
    ))
    add(BoolParam(
        "gpuarray.single_stream", True,
        "Run all GPU ops of a function on one CUDA stream (CuPy's current stream).",
    ))
    add(PathParam(
        "gpuarray.cache_path",
        lambda: os.path.join(cfg.get("compiledir"), "gpuarray_kernels"),
        "Folder where compiled GPU kernels are cached (default compiledir/gpuarray_kernels).",
        read_only=True,
    ))
