"""Theano's GPU back ends that do not exist here: ``theano.sandbox.cuda`` (removed in Theano 1.0
already) and ``theano.gpuarray`` (pygpu) answer as Theano without a GPU back end does, and
their use raises an error saying how jitgraph runs graphs on a GPU."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_old_cuda_backend_import_says_what_to_use():
    sys.modules.pop("jitgraph.sandbox.cuda", None)
    with pytest.raises(ImportError, match="device=cuda"):
        importlib.import_module("jitgraph.sandbox.cuda")


def test_programs_probing_gpuarray_take_their_cpu_branch():
    import jitgraph.gpuarray as gpuarray
    from jitgraph.gpuarray import dnn

    assert gpuarray.pygpu_activated is False  # Theano 1.0.5 without pygpu: False
    assert dnn.dnn_available() is False and dnn.dnn_present() is False
    assert "cuDNN" in dnn.dnn_available.msg


def test_using_gpuarray_raises_saying_how():
    import jitgraph.gpuarray as gpuarray
    from jitgraph.gpuarray import dnn

    with pytest.raises(gpuarray.GpuArrayBackendUnavailable, match="device=cuda"):
        gpuarray.use("cuda0")
    with pytest.raises(gpuarray.GpuArrayBackendUnavailable, match="device=cuda"):
        dnn.dnn_conv("img", "kern")
    with pytest.raises(AttributeError, match="pygpu GPU back end"):
        gpuarray.GpuArrayType


def test_removed_downsample_module_names_its_replacement():
    sys.modules.pop("jitgraph.tensor.signal.downsample", None)
    with pytest.raises(ImportError, match="pool_2d"):
        importlib.import_module("jitgraph.tensor.signal.downsample")
