"""``nvcc.fastmath`` / ``nvcc.flags`` as NVRTC options, and the options in the cache key.
Nothing here needs NVRTC or a GPU."""

from __future__ import annotations

import pytest

import jitgraph
from jitgraph.backend_gpu import nvrtc
from jitgraph.backend_gpu.kernels import CudaSource


@pytest.mark.parametrize("flag, expected", [
    ("-lineinfo", ("-lineinfo",)),
    ("--generate-line-info", ("-lineinfo",)),
    ("-G", ("-G",)),
    ("--device-debug", ("-G",)),
    ("--maxrregcount=32", ("--maxrregcount=32",)),
    ("-maxrregcount=32", ("--maxrregcount=32",)),
    ("-DFOO -DBAR=2 -UBAZ", ("-DFOO", "-DBAR=2", "-UBAZ")),
    ("--define-macro=FOO=1", ("-DFOO=1",)),
    ("-I/opt/include --include-path=/x", ("-I/opt/include", "-I/x")),
    ("-O3", ("--ptxas-options=-O3",)),
    ("-O0", ("--ptxas-options=-O0",)),
    ("--use_fast_math -use_fast_math", ("--use_fast_math", "--use_fast_math")),
    ("-ftz=true --prec-div=false -prec-sqrt=false --fmad=false",
     ("--ftz=true", "--prec-div=false", "--prec-sqrt=false", "--fmad=false")),
    ("-Xptxas=-v --ptxas-options=-O2", ("--ptxas-options=-v", "--ptxas-options=-O2")),
    ("-std=c++17 --std=c++14", ("-std=c++17", "-std=c++14")),
    ("-restrict -w --extra-device-vectorization",
     ("--restrict", "-w", "--extra-device-vectorization")),
    ("-m64", ()),
    ("", ()),
])
def test_nvcc_spellings_nvrtc_takes_are_translated(flag, expected):
    assert nvrtc.translate_flags(flag) == expected


@pytest.mark.parametrize("flag, why", [
    ("-arch=sm_80", "architecture"),
    ("--gpu-architecture=sm_90", "architecture"),
    ("-gencode=arch=compute_80,code=sm_80", "architecture"),
    ("-Xcompiler=-fPIC", "host code"),
    ("-ccbin=/usr/bin/gcc", "host code"),
    ("-g", "host code"),
    ("-shared", "host code"),
    ("-rdc=true", "non-relocatable"),
    ("--expt-relaxed-constexpr", "no such option"),
    ("--frobnicate", "no such option"),
])
def test_options_nvrtc_cannot_take_are_refused_by_name(flag, why):
    with pytest.raises(nvrtc.NvrtcOptionError) as err:
        nvrtc.translate_flags(f"-lineinfo {flag} -G")
    assert flag in str(err.value) and why in str(err.value)


def test_every_refused_option_is_named_in_one_error():
    with pytest.raises(nvrtc.NvrtcOptionError) as err:
        nvrtc.translate_flags("-g -Xcompiler=-O2 -lineinfo --bogus")
    msg = str(err.value)
    assert "-g (" in msg and "-Xcompiler=-O2 (" in msg and "--bogus (" in msg
    assert "-lineinfo (" not in msg


def test_flags_become_options():
    with jitgraph.config.change_flags({"nvcc.fastmath": True, "nvcc.flags": "-lineinfo -O3"}):
        assert nvrtc.current_options() == ("--use_fast_math", "-lineinfo",
                                           "--ptxas-options=-O3")
    with jitgraph.config.change_flags({"nvcc.flags": "--use_fast_math"}):
        assert nvrtc.current_options() == ("--use_fast_math",)
    with jitgraph.config.change_flags({"nvcc.flags": "-arch=sm_70"}):
        with pytest.raises(nvrtc.NvrtcOptionError, match="architecture"):
            nvrtc.current_options()
    assert nvrtc.current_options() == ()


def test_architecture_names():
    assert nvrtc.arch_option("sm_90") == "--gpu-architecture=sm_90"
    assert nvrtc.arch_option("sm_90a") == "--gpu-architecture=sm_90a"
    with pytest.raises(ValueError, match="sm_XX"):
        nvrtc.arch_option("compute_80")


def test_options_arch_and_flags_enter_the_cache_key(monkeypatch):
    from jitgraph.backend_gpu import kernels

    monkeypatch.setattr(nvrtc, "version", lambda: (13, 5))
    src = CudaSource(("test-kernel", 1), "// x\n", ("k",), "test")
    base = kernels.cache_key(src, "sm_90", ())
    assert base == kernels.cache_key(src, "sm_90", ())
    assert "arch" in base.differences(kernels.cache_key(src, "sm_80", ()))
    assert "nvrtc_options" in base.differences(kernels.cache_key(src, "sm_90",
                                                                 ("--use_fast_math",)))
    with jitgraph.config.change_flags({"nvcc.fastmath": True}):
        assert "flags" in base.differences(kernels.cache_key(src, "sm_90", ()))
    monkeypatch.setattr(nvrtc, "version", lambda: (12, 9))
    assert "nvrtc" in base.differences(kernels.cache_key(src, "sm_90", ()))
    assert base.as_dict()["backend"] == "cuda"


def test_resource_usage_and_warning_lines_of_a_log():
    log = ("ptxas info    : 0 bytes gmem\nptxas info    : Compiling entry function 'k' for "
           "'sm_90'\nptxas         .     0 bytes stack frame, 4 bytes spill stores, 4 bytes "
           "spill loads\nptxas info    : Used 21 registers, used 0 barriers")
    assert nvrtc.resource_usage(log) == {"registers": 21, "spill_stores": 4}
    assert nvrtc.warnings_in(log) == []
    assert nvrtc.warnings_in(log + "\nk.cu(3): warning #177-D: variable x unused") == [
        "k.cu(3): warning #177-D: variable x unused"]
