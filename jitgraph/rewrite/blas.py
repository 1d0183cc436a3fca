"""dot specialized into the BLAS ops Dot22, Gemv, Gemm and Ger."""

from __future__ import annotations
