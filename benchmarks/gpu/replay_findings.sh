#!/usr/bin/env bash
# Replay a conformance run's findings on the lent GPU machine: regenerate each finding's program
# from its campaign's seed (process k of a campaign ran hypothesis's seed SEED + k with
# ceil(EXAMPLES / JOBS) kernels, as conformance.sh does), then run each on the GPU against the
# CPU in its own process (a crash or a hang ends only that one) and write its shaders.
#
#   FINDINGS=.gpudiag/findings bash benchmarks/gpu/replay_findings.sh
#   (FINDINGS holds <campaign>/mismatches-<campaign>/<k>/<file>.py, as conformance.sh's
#   details.tgz does; carry it with .gl and .whl)
#
# Output: $OUT/replay.txt (one verdict per finding) and $OUT/replay.tgz (the regenerated
# programs, their shaders and logs).
set -u
source benchmarks/gpu/device_env.sh
FINDINGS=${FINDINGS:-.gpudiag/findings}
EXAMPLES=${EXAMPLES:-5000}
JOBS=${JOBS:-12}
SEED=${SEED:-1}
LIMIT=${LIMIT:-120}
per=$(((EXAMPLES + JOBS - 1) / JOBS))
work=$OUT/replay
mkdir -p "$work/programs" "$work/wgsl" "$work/logs"
for dir in "$FINDINGS"/*/mismatches-*/*/; do
    campaign=$(basename "$(dirname "$dir")")
    campaign=${campaign#mismatches-}
    k=$(basename "$dir")
    flags=()
    [ "$campaign" = int ] && flags=(--int-only)
    [ "$campaign" = float ] && flags=(--float-only)
    timeout 600 python3 -m tests.fuzz.replay regenerate --seed $((SEED + k)) --examples "$per" \
        "${flags[@]}" --out "$work/programs/$campaign-$k" "$dir"*.py \
        >"$work/logs/regenerate-$campaign-$k.txt" 2>&1 &
done
wait
cat "$work"/logs/regenerate-*.txt | grep regenerated | tee "$OUT/replay.txt"
find "$work/programs" -name "*.py" | sort | xargs -P "$JOBS" -I{} sh -c \
    'timeout '"$LIMIT"' python3 -m tests.fuzz.replay run --wgsl '"$work/wgsl"' "{}" >"{}.log" 2>&1 || echo "exit $? {}" >>"{}.log"'
for log in $(find "$work/programs" -name "*.log" | sort); do
    grep -hE "agrees|DISAGREES|^exit" "$log" | head -3 >>"$OUT/replay.txt" || echo "$log: no verdict" >>"$OUT/replay.txt"
done
grep -c agrees "$OUT/replay.txt" | sed 's/^/agree: /' | tee -a "$OUT/replay.txt"
grep -c DISAGREES "$OUT/replay.txt" | sed 's/^/disagree: /' | tee -a "$OUT/replay.txt"
tar czf "$OUT/replay.tgz" -C "$OUT" replay && rm -r "$work"
