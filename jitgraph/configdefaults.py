"""``theano.configdefaults``: where Theano declared its flags. jitgraph declares them in
:mod:`jitgraph.config.flags`; this module gives the configuration and the helpers that code
imported from here (``config``, the ``*Param`` classes, the compile-folder and platform helpers).

Theano's ``AddConfigVar`` is not provided (see :mod:`jitgraph.configparser`): a new flag is
declared with ``jitgraph.config.config.add(param)``.
"""

from __future__ import annotations

import os
import struct
import sys

from jitgraph.config import (BoolParam, ConfigError, DeviceParam, EnumParam, FloatParam,
                             IntParam, Param, StrParam, config, short_platform)
from jitgraph.config.paths import compiledir_keys, expand_compiledir_format
from jitgraph.config.sources import home_dir

#: Theano's name of the class of a flag
ConfigParam = Param
#: Theano's name of the class of a flag with a fixed set of values
EnumStr = EnumParam


def local_bitwidth() -> int:
    """The width of a pointer in bits (32 or 64)."""
    return struct.calcsize("P") * 8


def python_int_bitwidth() -> int:
    """The width in bits of the C integer behind a Python int on this platform."""
    return sys.maxsize.bit_length() + 1


def get_home_dir() -> str:
    """The user's home folder (``$HOME``, else ``~``)."""
    return home_dir(os.environ)


def default_compiledirname() -> str:
    """The name of the compile folder made from the ``compiledir_format`` flag."""
    keys = compiledir_keys(str(config.device), lazy=True, base=str(config.base_compiledir))
    return expand_compiledir_format(config.compiledir_format, keys)


def default_compiledir() -> str:
    """``base_compiledir``/``default_compiledirname()``."""
    return os.path.join(str(config.base_compiledir), default_compiledirname())


__all__ = ["config", "ConfigError", "ConfigParam", "BoolParam", "DeviceParam", "EnumStr",
           "FloatParam", "IntParam", "StrParam", "short_platform", "local_bitwidth",
           "python_int_bitwidth", "get_home_dir", "default_compiledirname",
           "default_compiledir"]
