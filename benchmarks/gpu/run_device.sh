#!/usr/bin/env bash
# Every GPU benchmark in one go, on the lent GPU machine (see README.md): the copy reference,
# tistudio as it is, as before the 2026-11-25 changes (no unrolled loops, 256 per workgroup,
# naga's runtime checks), with the checks only, with grid-stride loops unrolled by two; the
# stencil and n-body probes (shader variants); Taichi 1.7.4 on Vulkan and on CUDA. JSON rows go to
# $OUT/rows.jsonl and $OUT/probe.jsonl, stderr to $OUT/log.txt. SETUP=0 skips unpacking the
# Vulkan loader and the wheels (for a dry run where they are installed; device_env.sh).
source benchmarks/gpu/device_env.sh
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true) | tee "$L"
step() {  # step SECONDS COMMAND...: run with a time limit, log how long it took
    local limit=$1 start=$SECONDS
    shift
    echo "== $* (limit ${limit}s)" | tee -a "$L"
    timeout "$limit" "$@" 2>>"$L" | tee -a "$R"
    echo "== took $((SECONDS - start))s" | tee -a "$L"
}
PYTHONPATH= step 45 python3 $B copy
step 110 python3 $B tistudio
BENCH_UNROLL=0 BENCH_CHECKS=1 step 110 python3 $B tistudio
BENCH_CHECKS=1 step 110 python3 $B tistudio
BENCH_GRID_UNROLL=2 step 110 python3 $B tistudio
echo "== stencil probe" | tee -a "$L"
timeout 120 python3 benchmarks/gpu/stencil_probe.py 2>>"$L" | tee "$OUT/probe.jsonl"
echo "== n-body probe" | tee -a "$L"
timeout 120 python3 benchmarks/gpu/nbody_probe.py 2>>"$L" | tee -a "$OUT/probe.jsonl"
step 100 python3 $B taichi vulkan
step 80 python3 $B taichi cuda
