"""The detector's two thresholds, each defined here once and imported wherever it is a default
(the detector, its output decoding, the rotated NMS, `load_models` and the `--conf` option
of `dominocam read` and `watch`), and the tile probability from which a box left out of a
hand photo asks for a review (`dominocam.vision.reading.PhotoReader`).

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

# A hand photo has no open end to say which box the calibration leaves out matters, and a
# tile dropped from a hand changes its count: there, every box left out whose tile
# probability (`p_tile`) is at least this asks for a review (`dominocam.vision.reading.PhotoReader`;
# a table photo keeps the calibration's `review_rejected`, 0.2, and asks at an open end
# whatever the probability). The highest of 0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5
# at which no picture with a missed tile asks for no review, on the train splits of two
# synthetic hand sets no model was fitted on (300 pictures, 16 tiles missed, 10 of them under
# a left-out box): 7 of those 10 ask at 0.1 (6 at 0.2), 139 needless questions (57 at 0.2);
# on the val splits (300) 8 of 12 at 0.1 against 4 at 0.2
# (`python -m measure.hand_drops`, docs/decisions/2026-12-03-reading-asks.md).
HAND_REVIEW_REJECTED = 0.1
