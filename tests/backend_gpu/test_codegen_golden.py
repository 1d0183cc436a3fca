"""Golden tests: the CUDA source generated for a few fixed graphs, compared with the files in
``golden/``. After an intended change of the generator, regenerate them with
``JITGRAPH_UPDATE_GOLDEN=1 pytest tests/backend_gpu/test_codegen_golden.py`` and review the
diff."""

from __future__ import annotations

import os
import pathlib

import pytest

import jitgraph.tensor as T
from jitgraph.tensor.elementwise import reduction as R

from gpu_testing import fused

GOLDEN = pathlib.Path(__file__).parent / "golden"


def _elemwise_contiguous():
    from jitgraph.backend_gpu.lower_elemwise import contiguous_module_source, structure_of

    x, y = T.fvectors("x", "y")
    s = T.fscalar("s")
    node = fused([T.exp(x) * y + s, T.sigmoid(x)])[0].owner
    return contiguous_module_source(structure_of(node)).source


def _elemwise_strided_broadcast():
    from jitgraph.backend_gpu.lower_elemwise import strided_module_source, structure_of

    m = T.dmatrix("m")
    row = T.drow("row")
    node = fused([T.maximum(m * row, 0.0)])[0].owner
    return strided_module_source(structure_of(node), 2).source


def _integer_floor_division():
    from jitgraph.backend_gpu.lower_elemwise import contiguous_module_source, structure_of

    a, b = T.lvectors("a", "b")
    node = fused([a // b, a % b, a ** b])[0].owner
    return contiguous_module_source(structure_of(node)).source


def _sum_rows():
    from jitgraph.backend_gpu.lower_reduce import module_source, structure_of

    x = T.fmatrix("x")
    return module_source(structure_of(R.Sum(axis=(1,))(x).owner), 1, 1).source


def _softmax():
    from jitgraph.backend_gpu.lower_nnet import module_source
    from jitgraph.backend_gpu.nnet_codegen import RowwiseStructure

    return module_source(RowwiseStructure(False, "float32", "float32")).source


CASES = {
    "elemwise_contiguous": _elemwise_contiguous,
    "elemwise_strided_broadcast": _elemwise_strided_broadcast,
    "integer_floor_division": _integer_floor_division,
    "sum_rows": _sum_rows,
    "softmax": _softmax,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_source_matches_golden(name):
    source = CASES[name]()
    path = GOLDEN / f"{name}.cu"
    if os.environ.get("JITGRAPH_UPDATE_GOLDEN"):
        path.write_text(source)
    assert path.exists(), f"{path} is missing; run with JITGRAPH_UPDATE_GOLDEN=1 to create it"
    assert source == path.read_text(), (
        f"the CUDA source generated for {name} changed; if intended, regenerate the golden "
        "files with JITGRAPH_UPDATE_GOLDEN=1 and review the diff")


def test_sources_are_deterministic_across_processes():
    from gpu_testing import run_python

    code = ("import sys; sys.path.insert(0, 'tests/backend_gpu')\n"
            "import test_codegen_golden as t\n"
            "print(t._elemwise_contiguous() == open('tests/backend_gpu/golden/"
            "elemwise_contiguous.cu').read())\n")
    res = run_python(code)
    assert res.stdout.strip().endswith("True"), res.stderr
