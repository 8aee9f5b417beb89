#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU and many cores (issue 36, point 5): render the
# synthetic sets with every core, fine-tune the detector, the reader and the verifier from the
# committed models, export them to ONNX, fit their calibration and measure them, in stages
# (python -m dominotrain.device_run; docs/training.md, "On a GPU machine").
#
#   bash scripts/train-on-device.sh OUT [--realval DIR] [--minutes 11] [--plan PLAN] ...
#
# PLAN: gpu (default), tiny, cpu-verifier (the verifier alone on a CPU), tiny-verifier,
# cpu-detector (the detector alone on a CPU, fitted to --minutes), cpu-detector-replay (the
# same with the committed detector's own training pictures beside the new ones).
#
# Writes OUT/candidates/ (the ONNX files, calibration.json, report.json) and never models/:
# scripts/keep-candidate-models.sh keeps them only when every gate holds. Run it again after
# an interruption: finished stages are skipped, an unfinished training resumes. Everything it
# prints also goes to OUT/train-on-device.log. Nothing is downloaded: ultralytics comes from
# the environment or from the wheels in .whl/ (installed into OUT/site without an index).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:?usage: bash scripts/train-on-device.sh OUT [options of python -m dominotrain.device_run]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/train-on-device.log"
python=${PYTHON:-python3}

site=""
if ! "$python" -c "import ultralytics" 2>/dev/null; then
    if ! ls "$root"/.whl/*.whl >/dev/null 2>&1; then
        echo "train-on-device: no ultralytics here and no wheels in .whl/ (docs/training.md)" >&2
        exit 2
    fi
    site="$out/site"
    if [ ! -f "$site/.installed" ]; then
        "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
            --disable-pip-version-check --upgrade --target "$site" "$root"/.whl/*.whl
        touch "$site/.installed"
    fi
fi

# The project from this checkout as it is (not installed), offline, settings in OUT.
export PYTHONPATH="$root:$root/datasets:$root/models${site:+:$site}${PYTHONPATH:+:$PYTHONPATH}"
export DOMINOCAM_MODELS="$root/models"
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=False YOLO_CONFIG_DIR="$out/.yolo" PYTHONUNBUFFERED=1
export MPLBACKEND=Agg

echo "train-on-device: $(date -u +%FT%TZ) in $root, log $log" | tee -a "$log"
"$python" -m dominotrain.device_run --out "$out" "$@" 2>&1 | tee -a "$log"
