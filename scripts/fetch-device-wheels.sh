#!/usr/bin/env bash
# The wheels a GPU machine without network needs to train (docs/training.md, "On a GPU
# machine"): ultralytics, onnxslim (its ONNX simplifier) and ultralytics-thop, at the versions
# and hashes of the lock (requirements/train.txt), into .whl/ (git-ignored; the device call
# carries it). All three are pure Python; torch, torchvision, OpenCV, onnx and onnxruntime are
# on the machine already. Run once, here, where the package index is reachable.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
pins=$(mktemp)
trap 'rm -f "$pins"' EXIT
for name in ultralytics onnxslim ultralytics-thop; do
    # the pin line and its --hash lines, without the environment marker
    awk -v name="$name" '
        $0 ~ "^" name "==" { keep = 1; sub(/ ;.*\\$/, " \\"); print; next }
        keep && /^    --hash/ { print; next }
        { keep = 0 }
    ' requirements/train.txt >>"$pins"
done
mkdir -p .whl
"$python" -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    -d .whl -r "$pins"
ls -l .whl
