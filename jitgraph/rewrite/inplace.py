"""In-place rewrites: elementwise ops and inc/set_subtensor that overwrite an input when it is safe."""

from __future__ import annotations
