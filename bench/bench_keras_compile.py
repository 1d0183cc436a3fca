"""Cold compile of Keras 1.2.2 training functions on jitgraph: ResNet50 and a LocallyConnected2D.

    python bench/bench_keras_compile.py                      # both models
    python bench/bench_keras_compile.py --models resnet50 --profile 30

Keras 1.2.2 is the copy the tests install (``pip install --no-deps --target`` into
``.jitgraph-test-cache/keras-1.2.2``, see ``tests/programs/test_keras1.py``; ``--keras DIR``
names another). Each model is built in a fresh process with an empty compiledir (cold) and
then again with the compiledir that process filled (warm). Reported: building the Keras model,
``model._make_train_function()`` (the ``theano.function`` call of Keras' training step: graph
building, rewriting, linking), the first ``train_on_batch`` (kernels compiled lazily are paid
here; a second call's time shows what the first spent beyond compiling: one ResNet50 step
takes seconds), the node count after rewriting, and, for the cold run, the compile split into stages
(rewrite phases by name with their node counts, lowering, native compilation of kernels and
how many kernels share a structure), the biggest first. ``--profile N`` prints the N most
expensive functions of the cold compile (cProfile, cumulative; the whole profile is kept in
``bench/results/keras-compile-<model>.prof``). Results are printed and written to
``bench/results/keras-compile-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from compile_stages import cpu_seconds, install, jitgraph_stages, show_stages  # noqa: E402
from harness import Table, load_average  # noqa: E402

KERAS_DIR = ROOT / ".jitgraph-test-cache" / "keras-1.2.2"
MODELS = ("resnet50", "locally-connected")


def keras1() -> object:
    """Import Keras 1.2.2 on jitgraph, as ``tests/programs/keras1_programs.py`` does."""
    import collections
    import collections.abc
    import contextlib
    import inspect
    import warnings

    import jitgraph

    jitgraph.provide_theano()
    for name in ("Iterable", "Mapping", "MutableMapping", "Sequence", "Callable"):
        if not hasattr(collections, name):
            setattr(collections, name, getattr(collections.abc, name))
    if not hasattr(inspect, "getargspec"):  # gone in Python 3.11; Keras 1 reads its ``.args``
        inspect.getargspec = inspect.getfullargspec
    home = tempfile.mkdtemp(prefix="keras1-home-")
    os.makedirs(os.path.join(home, ".keras"))
    with open(os.path.join(home, ".keras", "keras.json"), "w") as config:
        json.dump({"floatx": "float32", "epsilon": 1e-7, "backend": "theano",
                   "image_dim_ordering": "th"}, config)
    real_home, os.environ["HOME"] = os.environ.get("HOME"), home
    os.environ["KERAS_BACKEND"] = "theano"
    warnings.filterwarnings("ignore")
    with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
        import keras
        import theano.ifelse  # noqa: F401  Keras 1.2.2 calls theano.ifelse without importing it
    if real_home is not None:
        os.environ["HOME"] = real_home
    assert keras.__version__ == "1.2.2", keras.__version__
    return keras


def build(keras: object, name: str) -> tuple:
    """A compiled-to-be Keras model and one batch of its data."""
    import numpy as np

    np.random.seed(0)
    if name == "resnet50":
        from keras.applications.resnet50 import ResNet50

        model = ResNet50(weights=None)
        x = np.random.rand(2, 3, 224, 224).astype("float32")
        y = np.eye(1000, dtype="float32")[[3, 7]]
    else:
        from keras.layers import Dense, Flatten, LocallyConnected2D
        from keras.models import Sequential

        model = Sequential([LocallyConnected2D(8, 3, 3, input_shape=(3, 32, 32),
                                               dim_ordering="th", activation="relu"),
                            Flatten(), Dense(10, activation="softmax")])
        x = np.random.rand(4, 3, 32, 32).astype("float32")
        y = np.eye(10, dtype="float32")[[1, 2, 3, 4]]
    model.compile("sgd", "categorical_crossentropy")
    return getattr(model, "model", model), x, y  # a Sequential compiles the Model inside it


def child(name: str, profile: int) -> dict:
    t0, c0 = time.perf_counter(), cpu_seconds()
    keras = keras1()
    t1, c1 = time.perf_counter(), cpu_seconds()
    model, x, y = build(keras, name)
    install()
    t2, c2 = time.perf_counter(), cpu_seconds()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    model._make_train_function()
    t3, c3 = time.perf_counter(), cpu_seconds()
    loss = float(model.train_on_batch(x, y))
    t4, c4 = time.perf_counter(), cpu_seconds()
    model.train_on_batch(x, y)  # a second step: what the first call spent beyond compiling
    t5, c5 = time.perf_counter(), cpu_seconds()
    from jitgraph.backend_cpu.codegen import tiering

    tiering.settle()  # every kernel optimised (a cold compile starts on tier-0 kernels)
    t6, c6 = time.perf_counter(), cpu_seconds()
    if profiler is not None:
        import io
        import pstats

        profiler.disable()
        out = HERE / "results" / f"keras-compile-{name}.prof"
        out.parent.mkdir(exist_ok=True)
        profiler.dump_stats(out)
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(profile)
        sys.stderr.write(text.getvalue())
    fn = model.train_function.function
    import resource

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"peak_rss_mb": peak_mb, "import_s": t1 - t0, "build_s": t2 - t1, "function_s": t3 - t2,
            "function_cpu_s": c3 - c2, "first_call_s": t4 - t3, "first_call_cpu_s": c4 - c3,
            "compile_s": t4 - t2, "compile_cpu_s": c4 - c2, "import_cpu_s": c1 - c0,
            "step_s": t5 - t4, "step_cpu_s": c5 - c4, "optimised_s": t6 - t2,
            "optimised_cpu_s": c6 - c2,
            "nodes": len(fn.maker.fgraph.apply_nodes), "loss": loss,
            "stages": jitgraph_stages(fn)}


def run_child(name: str, cache: Path, keras_dir: Path, profile: int) -> dict:
    env = dict(os.environ, JITGRAPH_FLAGS=f"base_compiledir={cache}",
               PYTHONPATH=os.pathsep.join([str(keras_dir), str(ROOT),
                                           os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, __file__, "--child", name, "--profile", str(profile)],
                         capture_output=True, text=True, env=env, timeout=3600)
    if profile:
        print(run.stderr)
    if run.returncode != 0:
        return {"error": run.stderr.strip().splitlines()[-1] if run.stderr else "failed"}
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--keras", default=str(KERAS_DIR), help="Keras 1.2.2's install folder")
    parser.add_argument("--profile", type=int, default=0,
                        help="print this many functions of a cProfile of the cold compile")
    parser.add_argument("--no-warm", action="store_true", help="skip the warm run")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.profile)))
        return
    if not (Path(args.keras) / "keras").is_dir():
        sys.exit(f"Keras 1.2.2 not found in {args.keras}: pip install --no-deps --target "
                 f"{args.keras} keras==1.2.2, or name its folder with --keras")
    print(f"load average {load_average():.2f}")
    table = Table("Cold and warm compile of Keras 1.2.2 training functions (fresh processes)",
                  [("model", "model", "s"), ("cache", "cache", "s"), ("nodes", "nodes", "d"),
                   ("build_s", "build s", ".2f"), ("function_s", "function s", ".2f"),
                   ("function_cpu_s", "function cpu s", ".2f"),
                   ("first_call_s", "1st call s", ".2f"),
                   ("first_call_cpu_s", "1st call cpu s", ".2f"),
                   ("step_cpu_s", "2nd call cpu s", ".2f"), ("compile_s", "compile s", ".2f"),
                   ("compile_cpu_s", "compile cpu s", ".2f"),
                   ("optimised_s", "all optimised s", ".2f"),
                   ("optimised_cpu_s", "all optimised cpu s", ".2f"),
                   ("peak_rss_mb", "peak MB", ".0f"),
                   ("loss", "loss", ".6f")])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            cache = Path(tmp) / name
            rows.append({"model": name, "cache": "cold",
                         **run_child(name, cache, Path(args.keras), args.profile)})
            if not args.no_warm:
                rows.append({"model": name, "cache": "warm",
                             **run_child(name, cache, Path(args.keras), 0)})
    for row in rows:
        table.add(**{k: v for k, v in row.items() if k != "stages"})
    table.show()
    for row in rows:
        if row["cache"] == "cold" and "stages" in row:
            show_stages(f"{row['model']} cold compile", row["stages"])
    print(f"load average {load_average():.2f}")
    out = HERE / "results" / f"keras-compile-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"table": table.to_json(), "rows": rows}, indent=1))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
