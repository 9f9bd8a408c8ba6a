"""Side-by-side benchmarks of tistudio against Taichi, Numba and NumPy (see README.md)."""
