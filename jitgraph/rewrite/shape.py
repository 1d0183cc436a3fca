"""Shape inference (a ShapeFeature over every op's infer_shape), static resolution of shape(x), and the alloc rewrites."""

from __future__ import annotations
