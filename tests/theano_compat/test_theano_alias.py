"""``import theano`` meaning jitgraph: in code (provide_theano, theano_is_jitgraph), through the
runner (python -m jitgraph.theano_compat) and installed (the theano-on-jitgraph .pth hook)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import jitgraph
from jitgraph.theano_compat import THEANO_VERSION, theano_is_jitgraph

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOOK = ROOT / "compat" / "theano-on-jitgraph"

PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    import theano
    import theano.tensor as T
    from theano.tensor.nnet import sigmoid
    x = T.dvector("x")
    f = theano.function([x], sigmoid(x).sum())
    print(f(np.zeros(4)), theano.__version__, sys.argv[1:], __name__)
    sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
""")


def _run(args: list[str], cwd: pathlib.Path, env: dict | None = None
         ) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=300)


def test_within_the_block_theano_is_jitgraph_and_forgotten_after():
    assert "theano" not in sys.modules
    with theano_is_jitgraph():
        import theano
        import theano.tensor as T

        assert T is jitgraph.tensor and theano.tensor is jitgraph.tensor
        assert theano.function is jitgraph.function and theano.config is jitgraph.config
        assert theano.__version__ == THEANO_VERSION == f"1.0.5+jitgraph.{jitgraph.__version__}"
        assert "jitgraph" in repr(theano) and theano.__file__ == jitgraph.__file__
        from theano.tensor.shared_randomstreams import RandomStreams

        assert RandomStreams.__module__.startswith("jitgraph.")
    assert not any(name == "theano" or name.startswith("theano.") for name in sys.modules)


def test_provide_theano_for_the_process():
    code = ("import jitgraph; jitgraph.provide_theano(); jitgraph.provide_theano()\n"
            + PROGRAM)
    run = _run(["-c", code], ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[:2] == ["2.0", THEANO_VERSION]


def test_provide_theano_refuses_after_a_real_theano_was_imported(tmp_path):
    (tmp_path / "theano").mkdir()
    (tmp_path / "theano" / "__init__.py").write_text("REAL = True\n")
    code = ("import theano, jitgraph\n"
            "try:\n    jitgraph.provide_theano()\nexcept RuntimeError as e:\n    print(e)\n")
    run = _run(["-c", code], tmp_path)
    assert "before anything imports theano" in run.stdout, run.stdout + run.stderr


def test_the_runner_runs_a_script_as_python_does(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    run = _run(["-m", "jitgraph.theano_compat", "program.py", "3"], tmp_path)
    assert run.returncode == 3, run.stderr
    assert run.stdout.split() == ["2.0", THEANO_VERSION, "['3']", "__main__"]


def test_the_runner_runs_a_module_and_says_what_it_needs(tmp_path):
    (tmp_path / "program_module.py").write_text(PROGRAM)
    run = _run(["-m", "jitgraph.theano_compat", "-m", "program_module"], tmp_path)
    assert run.returncode == 0 and run.stdout.split()[-1] == "__main__", run.stderr
    missing = _run(["-m", "jitgraph.theano_compat", "absent.py"], tmp_path)
    assert missing.returncode != 0 and "absent.py" in missing.stderr
    bare = _run(["-m", "jitgraph.theano_compat"], tmp_path)
    assert bare.returncode == 2 and "usage" in bare.stderr


def _site_with_hook(tmp_path: pathlib.Path) -> pathlib.Path:
    """A folder holding what installing theano-on-jitgraph puts in site-packages."""
    site = tmp_path / "site"
    site.mkdir()
    for name in ("theano_on_jitgraph.py", "theano_on_jitgraph.pth"):
        shutil.copy(HOOK / name, site / name)
    return site


def _with_site(site: pathlib.Path, code: str) -> str:
    return f"import site; site.addsitedir({str(site)!r})\n" + code


def test_the_installed_hook_makes_import_theano_give_jitgraph(tmp_path):
    site = _site_with_hook(tmp_path)
    run = _run(["-c", _with_site(site, PROGRAM)], tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[:2] == ["2.0", THEANO_VERSION]
    off = _run(["-c", _with_site(site, "import theano")], tmp_path,
               {"JITGRAPH_THEANO_ALIAS": "0"})
    assert "No module named 'theano'" in off.stderr


def test_the_installed_hook_beside_a_real_theano_warns_and_leaves_it(tmp_path):
    site = _site_with_hook(tmp_path)
    (tmp_path / "theano").mkdir()  # a real Theano on the path (the current folder)
    (tmp_path / "theano" / "__init__.py").write_text("REAL = True\n")
    code = _with_site(site, "import theano\nprint(hasattr(theano, 'REAL'), theano.__version__)")
    run = _run(["-c", code], tmp_path)
    assert run.stdout.split() == ["False", THEANO_VERSION], run.stderr
    assert "a real Theano is installed" in run.stderr and "JITGRAPH_THEANO_ALIAS=0" in run.stderr
    real = _run(["-c", _with_site(site, "import theano\nprint(theano.REAL)")], tmp_path,
                {"JITGRAPH_THEANO_ALIAS": "0"})
    assert real.stdout.strip() == "True", real.stderr
    assert (tmp_path / "theano" / "__init__.py").read_text() == "REAL = True\n"
