"""The on-disk compiledir: keys with named parts, per-module locks, atomic entries, ageing, the
metadata every kind of entry is described in (:mod:`jitgraph.cache.metadata`), and the
``jitgraph-cache`` command, which reads any compiledir (:mod:`jitgraph.cache.survey`). See
:mod:`jitgraph.cache.store` for the layout, and :mod:`jitgraph.cache.trust` for whose writing is
trusted (the compiledir holds code)."""

from jitgraph.cache.keys import CacheKey, environment_parts, make_key
from jitgraph.cache.locking import ModuleLock, force_unlock
from jitgraph.cache.modules import CachedModule
from jitgraph.cache.store import STATS, CacheStats, CacheWarning, Entry, compiledir

__all__ = ["CacheKey", "make_key", "environment_parts", "ModuleLock", "force_unlock",
           "CachedModule", "STATS", "CacheStats", "CacheWarning", "Entry", "compiledir"]
