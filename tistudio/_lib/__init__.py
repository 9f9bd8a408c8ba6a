"""Taichi's `taichi._lib` package, as far as programs and Taichi's tests import it.

Taichi keeps its compiled core and a few platform helpers under `taichi._lib`; its GUI test imports
`taichi._lib.utils.get_os_name`, so the name has to exist here for those programs to run unchanged.
"""
