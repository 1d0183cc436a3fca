"""CPU backend: graphs lowered to Numba (LLVM) kernels. Built in the CPU-backend issue."""
