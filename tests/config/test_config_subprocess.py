"""End-to-end tests: a fresh interpreter per scenario, as a user would run it.

Each runs ``python -c`` with HOME set to an empty folder and no jitgraph/Theano variables except
the ones the test sets. Several checks share one interpreter where that keeps them readable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., "subprocess.CompletedProcess[str]"]  # noqa: F821

SEED_RC = """\
[global]
floatX = float32
device = gpu0

[nvcc]
fastmath = True
"""
SEED_FLAGS = "floatX=float32,device=gpu0,nvcc.fastmath=True"

# Prints {flag: [value repr, source]} for the flags named on the command line.
SHOW = """
import json, sys
from jitgraph.config import config
print(json.dumps({n: [repr(config.get(n)), config.source_of(n)] for n in sys.argv[1:]}))
"""


def show(run: Run, *names: str, env: dict[str, str] | None = None) -> dict[str, list[str]]:
    proc = run(args=["-c", SHOW, *names], env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_acceptance_flags_string_via_jitgraph_config(run_py: Run) -> None:
    env = {"THEANO_FLAGS": "floatX=float32,device=cpu,nvcc.fastmath=True"}
    proc = run_py("import jitgraph.config as c; print(c.floatX, c.nvcc.fastmath)", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "float32 True\n" and proc.stderr == ""


def test_acceptance_flags_string_via_jitgraph(run_py: Run) -> None:
    env = {"THEANO_FLAGS": "floatX=float32,device=cpu,nvcc.fastmath=True"}
    proc = run_py("import jitgraph as t; print(t.config.floatX, t.config.nvcc.fastmath)", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "float32 True\n"


def test_right_most_definition_wins(run_py: Run) -> None:
    out = show(run_py, "device", env={"THEANO_FLAGS": "device=cpu,device=gpu0"})
    assert out["device"] == ["'gpu0'", "env THEANO_FLAGS"]


def test_seed_theanorc_equals_the_seed_flags_string(run_py: Run, home: Path) -> None:
    code = "import json; from jitgraph.config import config as c\n" \
           "print(json.dumps({n: repr(c.get(n)) for n in c.flag_names()}))"
    from_env = run_py(code, env={"THEANO_FLAGS": SEED_FLAGS})
    (home / ".theanorc").write_text(SEED_RC)
    from_rc = run_py(code)
    assert from_env.returncode == from_rc.returncode == 0, from_rc.stderr
    values = json.loads(from_rc.stdout)
    assert values == json.loads(from_env.stdout)
    assert (values["floatX"], values["device"], values["nvcc.fastmath"]) == \
        ("'float32'", "'gpu0'", "True")


def test_rc_file_lists_and_defaults(run_py: Run, home: Path, tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    a.write_text("[global]\nfloatX = float16\nprofile = True\n")
    b.write_text("[global]\nfloatX = float32\n")
    c.write_text("[global]\nfloatX = float64\nallow_gc = False\n")
    missing = tmp_path / "missing"
    out = show(run_py, "floatX", "profile",
               env={"THEANORC": os.pathsep.join([str(a), str(missing), str(b)])})
    assert out["floatX"] == ["'float32'", f"rc file {b} [global]"]  # b is right-most: it wins
    assert out["profile"] == ["True", f"rc file {a} [global]"]  # a still counts
    # JITGRAPHRC, when set, replaces THEANORC.
    out = show(run_py, "floatX", "profile", env={"THEANORC": str(a), "JITGRAPHRC": str(c)})
    assert out["floatX"][0] == "'float64'" and out["profile"] == ["False", "default"]
    # Without either: ~/.theanorc, then ~/.jitgraphrc on top.
    (home / ".theanorc").write_text("[global]\nfloatX = float16\nprofile = True\n")
    (home / ".jitgraphrc").write_text("[global]\nfloatX = float32\n")
    out = show(run_py, "floatX", "profile")
    assert out["floatX"] == ["'float32'", f"rc file {home / '.jitgraphrc'} [global]"]
    assert out["profile"] == ["True", f"rc file {home / '.theanorc'} [global]"]


def test_rc_interpolation_case_and_name_styles(run_py: Run, home: Path) -> None:
    (home / ".theanorc").write_text(
        "[global]\n"
        "FLOATX = float32\n"  # option names are case-insensitive
        "base_compiledir = %(HOME)s/cache_%(USER)s_%(PID)s\n"
        "compiledir_format = cd_%(python_version)s\n"  # no such variable: kept raw, as Theano
        "gpuarray.preallocate = 0.25\n"  # a dotted name in [global]
        "[NanGuardMode]\naction = warn\n"
        "[nanguardmode]\nbig_is_error = False\n"  # section names are case-sensitive
        "[dnn__conv]\nalgo_fwd = fft\n"  # PyTensor-style section
    )
    code = ("import os\nfrom jitgraph.config import config as c\n"
            "print(os.getpid()); print(c.floatX); print(c.base_compiledir)\n"
            "print(c.compiledir_format); print(c.gpuarray.preallocate)\n"
            "print(c.NanGuardMode.action, c.NanGuardMode.big_is_error, c.dnn.conv.algo_fwd)")
    proc = run_py(code, env={"USER": "alice"})
    assert proc.returncode == 0, proc.stderr
    pid, floatx, base, fmt, prealloc, last = proc.stdout.splitlines()
    assert floatx == "float32" and base == f"{home}/cache_alice_{pid}"
    assert fmt == "cd_%(python_version)s" and prealloc == "0.25"
    assert last == "warn True fft"
    assert proc.stderr.count("[nanguardmode]") == 1 and "[NanGuardMode]" in proc.stderr


def test_precedence_chain(run_py: Run, home: Path) -> None:
    (home / ".theanorc").write_text(
        "[global]\nfloatX = float16\nallow_gc = False\nprofile = False\noptimizer = o1\n")
    env = {"THEANO_FLAGS": "allow_gc=True,profile=False,optimizer=o2",
           "JITGRAPH_FLAGS": "profile=True,optimizer__=x,optimizer=o3"}
    code = ("import json\nfrom jitgraph.config import config as c\nc.optimizer = 'merge'\n"
            "names = ['linker', 'floatX', 'allow_gc', 'profile', 'optimizer']\n"
            "print(json.dumps([[c.get(n), c.source_of(n)] for n in names]))")
    proc = run_py(code, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [
        ["cvm", "default"],
        ["float16", f"rc file {home / '.theanorc'} [global]"],
        [True, "env THEANO_FLAGS"],
        [True, "env JITGRAPH_FLAGS"],
        ["merge", "code"],
    ]


def test_both_name_styles_and_quoting_in_env(run_py: Run) -> None:
    env = {"THEANO_FLAGS": 'DebugMode__check_c=False,nvcc.flags="-lineinfo --fmad=false",'
                           "profiling.destination='out,1.txt',gcc.cxxflags=-O3 -ffast-math",
           "JITGRAPH_FLAGS": "dnn__conv__algo_fwd=none"}
    out = show(run_py, "DebugMode.check_c", "nvcc.flags", "profiling.destination",
               "gcc.cxxflags", "dnn.conv.algo_fwd", env=env)
    assert out["DebugMode.check_c"] == ["False", "env THEANO_FLAGS"]
    assert out["nvcc.flags"][0] == "'-lineinfo --fmad=false'"
    assert out["profiling.destination"][0] == "'out,1.txt'"
    assert out["gcc.cxxflags"][0] == "'-O3 -ffast-math'"
    assert out["dnn.conv.algo_fwd"] == ["'none'", "env JITGRAPH_FLAGS"]


@pytest.mark.parametrize("env, rc, needles", [
    ({"THEANO_FLAGS": "floatX=float128"}, None,
     ["'floatX'", "'float128'", "float64, float32, float16", "env THEANO_FLAGS"]),
    ({"JITGRAPH_FLAGS": "allow_gc=yes"}, None,
     ["'allow_gc'", "'yes'", "True, False, true, false, 1, 0", "env JITGRAPH_FLAGS"]),
    ({}, "[compile]\nwait = 0\n", ["'compile.wait'", "'0'", "> 0", ".theanorc [compile]"]),
    ({}, "[global]\nmode = fast_run\n", ["'mode'", "'fast_run'", "FAST_RUN", "[global]"]),
    ({"THEANO_FLAGS": "profiling.n_apply=0"}, None, ["'profiling.n_apply'", "> 0"]),
    ({"OMP_NUM_THREADS": "lots"}, None, ["OMP_NUM_THREADS='lots'", "positive integer"]),
    ({}, "no section header\n", ["cannot parse rc file", ".theanorc"]),
])
def test_bad_values_fail_at_import_with_a_clear_message(
        run_py: Run, home: Path, env: dict[str, str], rc: str | None, needles: list[str]) -> None:
    if rc is not None:
        (home / ".theanorc").write_text(rc)
    proc = run_py("import jitgraph.config", env=env)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("jitgraph.config.ConfigError:"), proc.stderr
    for needle in needles:
        assert needle in last, (needle, last)


def test_unknown_and_ignored_flags_warn_once_and_never_crash(run_py: Run, home: Path) -> None:
    (home / ".theanorc").write_text("[blas]\nldflags = -lopenblas\n[nvcc]\nfastmth = 1\n")
    env = {"THEANO_FLAGS": "flaotX=float32,floatx=float32,foo,pycuda.init=True",
           "JITGRAPH_FLAGS": "flaotX=float16"}
    proc = run_py("import jitgraph.config as c; c.pycuda.init = False; c.pycuda.init = True; "
                  "print(c.floatX)", env=env)
    assert proc.returncode == 0 and proc.stdout == "float64\n", proc.stderr
    err = proc.stderr
    assert err.count("JitgraphConfigWarning") == 7, err
    assert err.count("'flaotX' (from env THEANO_FLAGS); did you mean 'floatX'?") == 1
    assert err.count("'flaotX' (from env JITGRAPH_FLAGS); did you mean 'floatX'?") == 1
    assert err.count("'floatx' (from env THEANO_FLAGS); did you mean 'floatX'?") == 1
    assert err.count("Config key 'foo' in env THEANO_FLAGS has no value") == 1
    assert err.count("'pycuda.init' is set to True") == 1  # once, though set again in code
    assert err.count("'blas.ldflags' is set to '-lopenblas'") == 1
    assert err.count("'fastmth'") == 1 and "did you mean 'fastmath'" in err


def test_read_only_flags_after_import(run_py: Run) -> None:
    code = """
from jitgraph.config import config, ConfigReadOnlyError
for attempt in (lambda: setattr(config, 'device', 'cuda0'),
                lambda: setattr(config.compile, 'wait', 3),
                lambda: config.change_flags({'numpy.seterr_all': 'raise'}).__enter__(),
                lambda: config.change_flags(optimizer_including='fusion').__enter__()):
    try:
        attempt()
        print('NO ERROR')
    except ConfigReadOnlyError as exc:
        print(exc)
print(config.device, config.compile.wait, config.numpy.seterr_all)
"""
    proc = run_py(code, env={"THEANO_FLAGS": "device=cuda1"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "NO ERROR" not in lines and lines[-1] == "cuda1 5 ignore"
    assert "'device'" in lines[0] and "assigned in code" in lines[0]
    assert "JITGRAPH_FLAGS='device=cuda0'" in lines[0] and "[global]: device = cuda0" in lines[0]
    assert "'compile.wait'" in lines[1] and "[compile]: wait = 3" in lines[1]
    assert "'numpy.seterr_all'" in lines[2] and "change_flags" in lines[2]
    assert "'optimizer_including'" in lines[3] and "THEANO_FLAGS" in lines[3]


def test_print_config_and_main(run_py: Run, home: Path) -> None:
    (home / ".theanorc").write_text("[nvcc]\nfastmath = True\n")
    env = {"THEANO_FLAGS": "floatX=float32", "JITGRAPH_FLAGS": "profile=True"}
    printed = run_py("import jitgraph.config as c; print(c)", env=env)
    main_all = run_py(args=["-m", "jitgraph.config"], env=env)
    assert printed.returncode == main_all.returncode == 0, main_all.stderr
    assert printed.stdout == main_all.stdout
    text = main_all.stdout
    assert text.startswith("floatX (float64, float32, float16")
    assert "    Value:  float32\n    Source:  env THEANO_FLAGS" in text
    assert "    Value:  True\n    Source:  env JITGRAPH_FLAGS" in text
    assert f"    Value:  True\n    Source:  rc file {home / '.theanorc'} [nvcc]" in text
    assert text.count("    Source:  default") > 100 and "[read-only]" in text

    one = run_py(args=["-m", "jitgraph.config", "nvcc__fastmath"], env=env)
    assert one.returncode == 0 and one.stdout.startswith("nvcc.fastmath (bool)")
    assert one.stdout.count("Source:") == 1
    two = run_py(args=["-m", "jitgraph.config", "floatX"], env=env)
    assert two.stdout.startswith("floatX (") and "Value:  float32" in two.stdout

    bad = run_py(args=["-m", "jitgraph.config", "flaotX"], env=env)
    assert bad.returncode == 1 and bad.stdout == ""
    assert "unknown flag 'flaotX'" in bad.stderr and "floatX" in bad.stderr


def test_import_is_side_effect_free(run_py: Run, home: Path, tmp_path: Path) -> None:
    base = tmp_path / "not_yet" / "base"
    code = """
import sys
from jitgraph.config import config
heavy = ('numpy', 'numba', 'llvmlite', 'cupy', 'scipy')
print([m for m in heavy if m in sys.modules])
str(config); config.code_hash(); config.seterr_kwargs()
print(config.compiledir)
print([m for m in heavy if m in sys.modules])
import numpy
print(numpy.geterr() == {'divide': 'warn', 'over': 'warn', 'under': 'ignore', 'invalid': 'warn'})
"""
    env = {"THEANO_FLAGS": f"base_compiledir={base},"
                           "compiledir_format=c_%(numba_version)s_%(llvm_version)s"}
    proc = run_py(code, env=env)
    assert proc.returncode == 0, proc.stderr
    before, compiledir, after, numpy_untouched = proc.stdout.splitlines()
    from importlib import metadata

    expected = f"c_{metadata.version('numba')}_{metadata.version('llvmlite')}"
    assert compiledir == str(base / expected)
    assert before == after == "[]" and numpy_untouched == "True"
    assert not base.parent.exists()
    assert sorted(os.listdir(home)) == []  # no ~/.jitgraph, nothing else
