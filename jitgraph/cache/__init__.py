"""The on-disk compiledir (keys, locks, atomic entries). Built in the compile-cache issue."""
