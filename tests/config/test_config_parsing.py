"""Unit tests of flag types, flag-string parsing, rc interpolation and compiledir naming."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgraph.config import (
    BoolParam,
    ConfigError,
    DeviceParam,
    EnumParam,
    FloatParam,
    IntParam,
    JitgraphConfigWarning,
    ModeParam,
    OptionalBoolParam,
    parse_device,
    short_platform,
)
from jitgraph.config.paths import check_compiledir_format, expand_compiledir_format
from jitgraph.config.sources import interpolate, normalize_key, parse_flag_string


def values(text: str) -> dict[str, str]:
    return {k: s.raw for k, s in parse_flag_string(text, "env TEST").items()}


# ---------------------------------------------------------------- flag types


@pytest.mark.parametrize("raw, expected", [
    ("True", True), ("true", True), ("1", True), (True, True), (1, True),
    ("False", False), ("false", False), ("0", False), (False, False), (0, False),
])
def test_bool_accepts_exactly_theano_spellings(raw: object, expected: bool) -> None:
    assert BoolParam("b", False, "").coerce(raw) is expected


@pytest.mark.parametrize("raw", ["yes", "TRUE", "no", "", "2", 2, None, 1.0])
def test_bool_rejects_everything_else(raw: object) -> None:
    with pytest.raises(ValueError):
        BoolParam("b", False, "").coerce(raw)


def test_enum_aliases_normalise_and_python_none_is_accepted() -> None:
    floatx = EnumParam("floatX", "float64", "", choices=("float64", "float32", "float16"),
                       aliases={"32": "float32"})
    assert floatx.coerce("32") == "float32"
    with pytest.raises(ValueError):
        floatx.coerce("Float32")  # case-sensitive like Theano
    opt = EnumParam("optimizer", "o4", "", choices=("o4", "None"))
    assert opt.coerce(None) == "None"


def test_int_and_float_ranges() -> None:
    wait = IntParam("compile.wait", 5, "", min=0, min_strict=True)
    assert wait.coerce("7") == 7
    for bad in ("0", "-1", "abc", "1.5", True):
        with pytest.raises(ValueError):
            wait.coerce(bad)
    assert "> 0" in wait.allowed()
    ratio = FloatParam("r", 8.0, "")
    assert ratio.coerce("inf") == float("inf")
    with pytest.raises(ValueError):
        ratio.coerce("nan")
    verbose = IntParam("metaopt.verbose", 0, "", bool_strings=True, min=0, max=2)
    assert verbose.coerce("True") == 1 and verbose.coerce("2") == 2


def test_optional_bool_and_mode() -> None:
    lazy = OptionalBoolParam("vm.lazy", None, "")
    assert [lazy.coerce(v) for v in ("None", None, "True", "false")] == [None, None, True, False]
    mode = ModeParam("mode", "Mode", "", choices=("Mode", "FAST_RUN"))
    marker = object()
    assert mode.coerce(marker) is marker  # a Mode instance from code is stored as is
    with pytest.raises(ValueError):
        mode.coerce("fast_run")


@pytest.mark.parametrize("dev, expected", [
    ("cpu", ("cpu", None)), ("cuda", ("cuda", None)), ("cuda1", ("cuda", 1)),
    ("gpu", ("cuda", None)), ("gpu0", ("cuda", 0)), ("opencl0:1", ("opencl", None)),
])
def test_device_names(dev: str, expected: tuple[str, int | None]) -> None:
    assert parse_device(dev) == expected
    assert DeviceParam("device", "cpu", "").coerce(dev) == dev  # stored as written


@pytest.mark.parametrize("dev", ["CUDA0", "gpu-1", "tpu", "cuda0:1", ""])
def test_bad_device_names(dev: str) -> None:
    with pytest.raises(ValueError):
        DeviceParam("device", "cpu", "").coerce(dev)


# ---------------------------------------------------------------- flag strings


def test_flag_string_right_most_wins_and_first_equals_splits() -> None:
    assert values("device=cpu,device=gpu0") == {"device": "gpu0"}
    assert values("profiling.destination=a=b") == {"profiling.destination": "a=b"}
    assert values(",,floatX=float32,,") == {"floatX": "float32"}


def test_flag_string_quotes_protect_commas_and_spaces_are_kept() -> None:
    parsed = values('gcc.cxxflags=-O3 -march=native,profiling.destination="a,b.txt",x=\'1,2\'')
    assert parsed == {"gcc.cxxflags": "-O3 -march=native", "profiling.destination": "a,b.txt",
                      "x": "1,2"}
    # The pair is stripped as a whole; key and value are not stripped separately (Theano).
    assert values(" z = 3 ") == {"z ": " 3"}


def test_flag_string_both_name_styles_normalise_and_right_most_wins() -> None:
    assert values("nvcc.fastmath=True,nvcc__fastmath=False") == {"nvcc.fastmath": "False"}
    assert normalize_key("dnn__conv__algo_fwd") == "dnn.conv.algo_fwd"


def test_flag_string_pair_without_value_warns_and_is_dropped() -> None:
    with pytest.warns(JitgraphConfigWarning, match="'bar' in env TEST has no value"):
        assert values("foo=1,bar") == {"foo": "1"}


def test_flag_string_unbalanced_quote_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="No closing quotation"):
        values('floatX="float32')


_keys = st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,12}", fullmatch=True).filter(
    lambda k: "__" not in k)
_vals = st.text(
    alphabet=st.characters(blacklist_characters='"\\', blacklist_categories=("Cs", "Cc")),
    max_size=15,
).filter(lambda v: v == v.rstrip())


@given(st.dictionaries(_keys, _vals, max_size=6))
def test_flag_string_round_trip_with_quoted_values(flags: dict[str, str]) -> None:
    text = ",".join(f'{k}="{v}"' for k, v in flags.items())
    assert values(text) == flags


# ---------------------------------------------------------------- rc interpolation


def test_interpolation_like_configparser() -> None:
    names = {"user": "bob", "pid": "42", "base": "/x/%(user)s"}
    assert interpolate("/s/%(USER)s/t_%(PID)s", names) == "/s/bob/t_42"
    assert interpolate("%(base)s/y", names) == "/x/bob/y"
    assert interpolate("100%%", names) == "100%"


# ---------------------------------------------------------------- compiledir naming


@pytest.mark.parametrize("release, full, expected", [
    ("5.4.0-42-generic", "Linux-5.4.0-42-generic-x86_64-with-glibc2.29",
     "Linux-5.4--generic-x86_64-with-glibc2.29"),
    ("2.6.32-504.el6.x86_64", "Linux-2.6.32-504.el6.x86_64-x86_64-with-redhat-6.6",
     "Linux-2.6-el6.x86_64-x86_64-with-redhat-6.6"),
    ("19.6.0", "macOS-10.15.7-x86_64-i386-64bit", "macOS-10.15.7-x86_64-i386-64bit"),
    ("10", "Windows-10-10.0.19041-SP0", "Windows-10-10.0.19041-SP0"),
])
def test_short_platform(release: str, full: str, expected: str) -> None:
    assert short_platform(release, full) == expected


def test_compiledir_format_expansion_and_validation() -> None:
    keys = {"python_version": "3.11.7", "processor": "", "device": "cuda0"}
    out = expand_compiledir_format("cd_%(python_version)s-%(processor)s (x, y)-%(device)s", keys)
    assert out == "cd_3.11.7-_x_y_-cuda0"
    assert check_compiledir_format("a_%(llvm_version)s_%(theano_version)s") .startswith("a_")
    with pytest.raises(ValueError, match="unknown substitution key"):
        check_compiledir_format("a_%(USER)s")
