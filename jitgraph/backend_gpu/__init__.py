"""GPU backend: graphs lowered to CuPy kernels compiled by NVRTC. Built in the GPU-backend issue."""
