#!/usr/bin/env bash
# GPU conformance: run this on the lent NVIDIA machine after every change to GPU code (see
# README.md here and docs/compiler-contract.md). It runs the GPU part of the test suite
# (tests/backends/webgpu, tests/fuzz, the differential cases on the GPU against Taichi on the
# CPU) and two fuzz campaigns on the GPU, all kernels and float-only kernels, spread over
# parallel processes; then prints one summary: tests passed/failed, kernels tried, mismatches.
#
#   from the device tool, with .gl and .whl carried (wgpu, cffi, pycparser, taichi, dill):
#   CHECKOUT=<hash> bash benchmarks/gpu/conformance.sh   # 5,000 + 5,000 kernels (the device's
#                                                        # copy may have a stale .git: say which)
#   EXAMPLES=500 JOBS=4 bash benchmarks/gpu/conformance.sh   # a quick look
#   PARTS="tests all" ...; PARTS=float ...   # in two calls, if one would pass the tool's 10 minutes
# The tests run in the background on one core while the campaigns use JOBS others.
#
# Output: $OUT/conformance.txt (the summary and the test tails), $OUT/pytest.txt, and
# $OUT/details.tgz with logs/campaign-*.txt and the sources of any mismatching kernel in
# logs/mismatches-*/. Copy
# conformance.txt to benchmarks/gpu/conformance/<card>-<date>.txt. SETUP=0 skips unpacking the
# Vulkan loader and the wheels (device_env.sh). Exit status 0 only if everything passed.
set -u
source benchmarks/gpu/device_env.sh
EXAMPLES=${EXAMPLES:-5000}  # kernels per campaign
JOBS=${JOBS:-12}            # campaign processes at a time (the device machine has 16 cores)
PARTS=${PARTS:-tests all float}
SEED=${SEED:-1}             # process k runs hypothesis's seed SEED + k: distinct kernels, repeatable
LIMIT=${LIMIT:-240}         # seconds a campaign process may take: a kernel that hangs ends it
SUMMARY=$OUT/conformance.txt
LOGS=$OUT/logs  # packed into $OUT/details.tgz at the end (the device tool returns 8 files)
mkdir -p "$LOGS"
export TISTUDIO_OFFLINE_CACHE=0
{
    echo "# GPU conformance, $(date -u +%Y-%m-%dT%H:%MZ), checkout ${CHECKOUT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
    python3 -c "from tistudio.backends.webgpu.device import default_device as d; print('adapter:', d().caps.description)"
} | tee "$SUMMARY"

tests_rc=0
if [[ " $PARTS " == *" tests "* ]]; then  # in the background, beside the campaigns (one core)
    (
        start=$SECONDS
        python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/backends/webgpu tests/fuzz \
            "tests/differential/test_differential.py::test_matches_taichi_on_gpu" \
            >"$OUT/pytest.txt" 2>&1
        rc=$?
        echo "== tests ($((SECONDS - start)) s): $(tail -n 1 "$OUT/pytest.txt")" >"$OUT/tests.txt"
        grep -E "^(FAILED|ERROR)" "$OUT/pytest.txt" >>"$OUT/tests.txt"
        # earlier campaigns' kernels that NVIDIA got wrong, fixed since (conformance/findings-*)
        python3 -m tests.fuzz.replay run benchmarks/gpu/conformance/findings-*/fixed_*.py \
            >"$OUT/findings.txt" 2>&1 || rc=1
        echo "== fixed findings: $(tail -n 1 "$OUT/findings.txt")" >>"$OUT/tests.txt"
        grep DISAGREES "$OUT/findings.txt" >>"$OUT/tests.txt"
        exit $rc
    ) &
    tests_pid=$!
fi

campaign() {  # campaign NAME ARGS...: $EXAMPLES kernels over $JOBS processes
    local name=$1 start=$SECONDS per=$(((EXAMPLES + JOBS - 1) / JOBS)) k pids=()
    shift
    for ((k = 0; k < JOBS; k++)); do
        timeout "$LIMIT" python3 -m tests.fuzz.campaign --examples "$per" --gpu --no-tiers \
            --fast-math on --seed "$((SEED + k))" "$@" \
            --out "$LOGS/mismatches-$name/$k" >"$LOGS/campaign-$name-$k.txt" 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"  # not the tests, which run on
    python3 - "$name" "$((SECONDS - start))" "$LOGS"/campaign-"$name"-*.txt <<'EOF' | tee -a "$SUMMARY"
import re, sys
name, seconds, files = sys.argv[1], sys.argv[2], sys.argv[3:]
tried = bad = 0
for path in files:
    text = open(path).read()
    m = re.search(r"kernels tried: (\d+); mismatches or errors: (\d+)", text)
    if m is None:
        print(f"== campaign {name}: {path} has no summary (crashed, or hung past LIMIT: see its")
        print(f"   running.py):\n{text[-1500:]}")
        bad += 1
        continue
    tried, bad = tried + int(m[1]), bad + int(m[2])
    for line in text.splitlines():
        if line.startswith("by check:"):
            print(f"   {path.rsplit('/', 1)[-1]}: {line}")
import glob, pathlib
sources = {p.read_text().split("def make", 1)[-1] for p in map(pathlib.Path, glob.glob(f"{files[0].rsplit('/', 1)[0]}/mismatches-{name}/*/*.py"))}
print(f"== campaign {name}: kernels tried {tried}, mismatches {bad} ({len(sources)} distinct kernels), {seconds} s")
EOF
}
[[ " $PARTS " == *" all "* ]] && campaign all
[[ " $PARTS " == *" int "* ]] && campaign int --int-only
[[ " $PARTS " == *" float "* ]] && campaign float --float-only
if [ -n "${tests_pid:-}" ]; then
    wait "$tests_pid"
    tests_rc=$?
    tee -a "$SUMMARY" <"$OUT/tests.txt"
fi
tar czf "$OUT/details.tgz" -C "$OUT" logs && rm -r "$LOGS"
if [ $tests_rc -eq 0 ] && ! grep -qE "mismatches [1-9]|no summary" "$SUMMARY"; then
    echo "== conformance: PASS" | tee -a "$SUMMARY"
else
    echo "== conformance: FAIL" | tee -a "$SUMMARY"
    exit 1
fi
