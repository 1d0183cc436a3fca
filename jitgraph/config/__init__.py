"""jitgraph's configuration: Theano-compatible flags, rc files and ``change_flags``.

``config`` is the one global ``Config``. Values come from, lowest to highest priority: defaults,
rc files (``JITGRAPHRC``, else ``THEANORC``, else ``~/.theanorc`` then ``~/.jitgraphrc``),
``THEANO_FLAGS``, ``JITGRAPH_FLAGS``, and assignment in code or ``change_flags``::

    from jitgraph.config import config, change_flags
    config.floatX                       # 'float64'
    config.nvcc.fastmath                # same as config.nvcc__fastmath
    with change_flags(floatX="float32"):
        ...
    print(config)                       # every flag: allowed values, doc, value, source

Importing this package reads the environment and the rc files and validates them (a bad value
raises ``ConfigError`` here), warns about unknown flags, and does nothing else: no folder is
created (``ensure_compiledir()`` does that at the first compile), NumPy's error state is not
touched (wrap calls in ``numpy.errstate(**config.seterr_kwargs())``), and neither numba nor cupy
is imported.

Read-only flags (``config.param(name).read_only``) can only be set through env vars or rc files;
assigning them in code or through ``change_flags`` raises ``ConfigReadOnlyError``, except that
assigning the value they already have is accepted as a no-op.
"""

from __future__ import annotations

from typing import Any

from jitgraph.config.core import Config, ConfigSection, FlagChange
from jitgraph.config.flags import build_config
from jitgraph.config.flags_backend import omp_num_threads
from jitgraph.config.params import (
    BoolParam,
    ConfigError,
    ConfigReadOnlyError,
    DeviceParam,
    EnumParam,
    FloatParam,
    IntParam,
    JitgraphConfigWarning,
    ModeParam,
    OptionalBoolParam,
    Param,
    PathParam,
    StrParam,
    parse_device,
)
from jitgraph.config.paths import compiledir_keys, ensure_compiledir, short_platform

__all__ = [
    "BoolParam",
    "Config",
    "ConfigError",
    "ConfigReadOnlyError",
    "ConfigSection",
    "DeviceParam",
    "EnumParam",
    "FlagChange",
    "FloatParam",
    "IntParam",
    "JitgraphConfigWarning",
    "ModeParam",
    "OptionalBoolParam",
    "Param",
    "PathParam",
    "StrParam",
    "build_config",
    "change_flags",
    "compiledir_keys",
    "config",
    "ensure_compiledir",
    "omp_num_threads",
    "parse_device",
    "short_platform",
]

config: Config = build_config()


def change_flags(*args: Any, **kwargs: Any) -> FlagChange:
    """``config.change_flags`` on the global config: a context manager and a decorator."""
    return config.change_flags(*args, **kwargs)


def __getattr__(name: str) -> Any:
    # ``import jitgraph.config as c`` binds the Config object once jitgraph/__init__.py has
    # replaced the submodule attribute, but the module itself otherwise; make both read flags.
    if name.startswith("_"):
        raise AttributeError(name)
    return getattr(config, name)
