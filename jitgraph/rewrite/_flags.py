"""Reading the config flags the rewrite engine honours, in one place.

The engine reads flags when a rewrite run starts (not at import), so ``change_flags`` around a
``function()`` call takes effect. A flag missing from the config (e.g. an embedding application
that registers fewer flags) falls back to its documented default instead of failing a compile.
"""

from __future__ import annotations

import math
from typing import Any

from jitgraph.config import config

#: documented defaults, used when the config does not define a flag
DEFAULTS: dict[str, Any] = {
    "optdb.position_cutoff": math.inf,
    "optdb.max_use_ratio": 8.0,
    "on_opt_error": "warn",
    "on_shape_error": "warn",
    "optimizer_verbose": False,
    "profile_optimizer": False,
    "cycle_detection": "regular",
    "check_stack_trace": "off",
    "optimizer_including": "",
    "optimizer_excluding": "",
    "optimizer_requiring": "",
    "tensor.local_elemwise_fusion": True,
}


def flag(path: str) -> Any:
    """The current value of config flag ``path`` (dotted), or its default if it is not defined."""
    obj: Any = config
    try:
        for part in path.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        return DEFAULTS[path]
    return obj


def tag_list(value: Any) -> list[str]:
    """A ``:``-separated tag flag (or an already split sequence) as a list of non-empty tags."""
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in value.split(":") if t]
    return [str(t) for t in value if t]
