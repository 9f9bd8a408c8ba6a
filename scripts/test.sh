#!/usr/bin/env bash
# Install everything the tests need, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# System packages: Mesa's lavapipe (Vulkan on the CPU) for the WebGPU back end's tests, and
# Debian's chromium (/usr/bin/chromium) for the studio's browser tests (needs root for apt).
if ! dpkg -s mesa-vulkan-drivers libvulkan1 chromium >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq mesa-vulkan-drivers libvulkan1 chromium >/dev/null
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"  # Mesa warns when it is unset
python -m pip install --quiet --disable-pip-version-check -e ".[test]"
python -m pytest "$@"
