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
set -o pipefail
OUT=${OUT:-/tmp/bench-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export XDG_RUNTIME_DIR=/tmp PYTHONUNBUFFERED=1 TISTUDIO_OFFLINE_CACHE=0
B=benchmarks/gpu/bench.py
R=$OUT/rows.jsonl
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$L"
PYTHONPATH= timeout 45 python3 $B copy | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD timeout 110 python3 $B tistudio 2>>"$L" | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD/_before:$PWD timeout 110 python3 $B tistudio 2>>"$L" |
    sed -E 's/"framework": "(tistudio[^"]*)"/"framework": "\1 before"/' | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD timeout 100 python3 $B taichi vulkan 2>>"$L" | tee -a "$R"
PYTHONPATH=/tmp/site:$PWD timeout 80 python3 $B taichi cuda 2>>"$L" | tee -a "$R"
PYTHONPATH= timeout 45 python3 $B copy | tee -a "$R"
