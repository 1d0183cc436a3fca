"""``theano.configparser``: Theano 1.0's module of the configuration, for code that imports
from it (PyMC3 3.x: ``from theano.configparser import change_flags``, and
``theano.configparser._config_var_list`` to save and restore flags by name).

``config`` and ``change_flags`` are :mod:`jitgraph.config`'s. ``_config_var_list`` lists one
:class:`ConfigVar` per flag, with Theano's descriptor protocol (``var.__get__(True, None)``
reads the value, ``var.__set__(None, value)`` assigns it as code does). Theano's API for
declaring flags (``AddConfigVar`` and the ``*Param`` classes) is not provided: a flag is
declared with ``jitgraph.config.config.add``.
"""

from __future__ import annotations

import os
from typing import Any

from jitgraph.config import ConfigError, change_flags, config
from jitgraph.config.sources import parse_flag_string

#: the ``THEANO_FLAGS`` string of the environment jitgraph was imported in
THEANO_FLAGS = os.environ.get("THEANO_FLAGS", "")


class ConfigVar:
    """One flag seen as Theano's ``ConfigParam`` descriptor (``fullname``, ``doc``,
    ``default``, ``__get__``/``__set__``)."""

    def __init__(self, name: str) -> None:
        param = config.param(name)
        self.fullname = name
        self.doc = param.doc
        self.default = param.default
        self.is_read_only = param.read_only

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return config.get(self.fullname)

    def __set__(self, instance: Any, value: Any) -> None:
        config.set(self.fullname, value)

    def __repr__(self) -> str:
        return f"ConfigVar({self.fullname!r})"


def __getattr__(name: str) -> Any:
    if name == "_config_var_list":  # built on use: packages loaded later add flags
        return [ConfigVar(flag) for flag in config.flag_names()]
    if name == "THEANO_FLAGS_DICT":
        settings = parse_flag_string(THEANO_FLAGS, "THEANO_FLAGS")
        return {s.key: s.raw for s in settings.values()}
    raise AttributeError(f"module 'jitgraph.configparser' has no attribute {name!r}")


__all__ = ["ConfigError", "ConfigVar", "THEANO_FLAGS", "change_flags", "config"]
