# Sourced by run_device.sh and run_before_after.sh on the lent GPU machine: unpacks the Vulkan
# loader debs (.gl/) and installs the wheels (.whl/) into /tmp/site (SETUP=0 skips that, for a
# dry run where they are installed), exports the benchmarks' environment, and sets $OUT (made),
# $B (bench.py), $R (the JSON rows) and $L (the log).
set -o pipefail
OUT=${OUT:-/tmp/bench-out}
mkdir -p "$OUT"
if [ "${SETUP:-1}" = 1 ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
fi
export XDG_RUNTIME_DIR=/tmp PYTHONUNBUFFERED=1 TISTUDIO_OFFLINE_CACHE=0
B=benchmarks/gpu/bench.py
R=$OUT/rows.jsonl
L=$OUT/log.txt
