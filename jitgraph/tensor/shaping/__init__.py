"""Shapes: the shape ops, reshape and broadcast patterns, dims arithmetic, joining and splitting,
diagonals and special matrices."""
