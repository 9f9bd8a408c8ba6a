"""Back ends: turn the offloaded, access-lowered final IR into something that runs.

`llvm/` compiles each task to native code through llvmlite and runs parallel loops on a thread
pool; `webgpu/` compiles tasks to WGSL compute shaders. Both read only `tistudio.ir`.
"""
