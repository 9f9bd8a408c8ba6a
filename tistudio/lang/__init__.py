"""The Taichi language as users write it: `ti.init`, fields, kernels, funcs and friends."""
