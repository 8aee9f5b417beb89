"""The detector's two thresholds, each defined here once and imported wherever it is a default
(the detector, its output decoding, the rotated NMS, `load_models` and the `--conf` option
of `dominocam read` and `watch`).

Only plain numbers: importing this module costs nothing, so command-line modules may use it.
"""

from __future__ import annotations

# The detector's confidence threshold: an anchor whose best class score is below it is no
# box. Ultralytics' own default for prediction, at which every figure of the bundled
# detector is measured (models/detector.md).
DETECTOR_CONF = 0.25

# The rotated NMS's probabilistic-IoU threshold: a box is dropped when its probiou with a
# kept, better box is at least this. Ultralytics' own default for prediction, as above.
NMS_IOU = 0.7
