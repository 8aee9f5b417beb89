#!/usr/bin/env bash
# Run tests on an emulated processor of another kind, to see that a result does not hang on
# the CPU's vector kernels (numpy, OpenCV and onnxruntime pick SSE, AVX2 or AVX-512 code at
# run time from what the CPU reports; none of them has a switch to force the plain path).
# qemu's user-mode emulator reports the chosen model's features, so every library takes the
# code path that model would take. About 50 to 100 times slower than the machine itself.
#
#   bash scripts/test-emulated-cpu.sh EPYC-Rome tests/vision/test_golden_readings.py
#   bash scripts/test-emulated-cpu.sh Nehalem -k golden      # SSE4.2, no AVX at all
#
# CPU models: `qemu-x86_64 -cpu help` (EPYC-Rome: AMD Zen 2 with AVX2, no AVX-512;
# Haswell: Intel AVX2; Nehalem: SSE4.2 only). Needs Debian's qemu-user (installed here when
# missing) and the .venv of `make test`. x86-64 machines only.
set -euo pipefail
cd "$(dirname "$0")/.."
cpu="${1:?usage: bash scripts/test-emulated-cpu.sh CPU_MODEL [PYTEST ARGS...]}"
shift
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
    apt-get install -y -q qemu-user >/dev/null
fi
test -x .venv/bin/python || { echo "run 'make test' first (it makes .venv)" >&2; exit 2; }
# qemu warns once per feature of the model that its emulator lacks (none of them vector
# instructions); the rest of standard error is the tests'.
qemu-x86_64 -cpu "$cpu" .venv/bin/python -c \
    "import numpy; numpy.show_runtime()" 2>/dev/null | grep -A3 simd_extensions
exec qemu-x86_64 -cpu "$cpu" .venv/bin/python -m pytest -p no:cacheprovider "$@" \
    2> >(grep -v "TCG doesn't support requested feature" >&2)
