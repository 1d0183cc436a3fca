"""GPU-backend test settings: CuPy's kernel cache in a temporary folder (set before anything
imports CuPy, so CI never writes to ~/.cupy), and the fixtures the NVRTC and GPU tests share."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("CUPY_CACHE_DIR", tempfile.mkdtemp(prefix="jitgraph-test-cupy-"))
