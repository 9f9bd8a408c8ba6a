#!/usr/bin/env bash
# tistudio as it is against an earlier commit's tistudio, plus Taichi 1.7.4 (Vulkan, CUDA) and
# the torch copy, all in one call of the device tool. Before the call, put the earlier package in
# `_before/` (untracked, so it travels with the working tree; carry `.gl` and `.whl` as in
# README.md):
#
#     rm -rf _before && mkdir _before && git archive <commit> tistudio | tar -x -C _before
#     run: OUT=$OUT bash benchmarks/gpu/run_before_after.sh     (carry: .gl, .whl)
#
# JSON rows go to $OUT/rows.jsonl (the earlier tistudio's framework name ends in " before"),
# stderr to $OUT/log.txt. The copy runs first and last, to show the GPU did not change speed.
# SETUP=0 skips the unpacking and installing (device_env.sh).
source benchmarks/gpu/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$L"
PYTHONPATH= timeout 45 python3 $B copy | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD timeout 110 python3 $B tistudio 2>>"$L" | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD/_before:$PWD timeout 110 python3 $B tistudio 2>>"$L" |
    sed -E 's/"framework": "(tistudio[^"]*)"/"framework": "\1 before"/' | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD timeout 100 python3 $B taichi vulkan 2>>"$L" | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD timeout 80 python3 $B taichi cuda 2>>"$L" | tee -a "$R"
PYTHONPATH= timeout 45 python3 $B copy | tee -a "$R"
