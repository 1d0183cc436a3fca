"""tensor."""
