"""Op type -> lowering: the registry and one module per op family, each registering how its ops run
on the CPU."""
