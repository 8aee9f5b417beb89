"""Studies: one-off measurements, each written to choose or check one constant of the product
(the constant's comment and its decision note in docs/decisions/ cite the study's command).

Not part of the product and not installed with it: run from a checkout, at the repository's
root, as `python -m studies.NAME --help`. A study may import `measure` and everything below
it; nothing imports a study (tests/test_package_layers.py).

* `set_down` - `dominocam.vision.layout.SET_DOWN_MISMATCHES_PER_LINK`: tiles set down side by side.
* `missing_tile_room` - `dominocam.vision.layout.MISSING_TILE_ROOM` and `GAP_MAY_HOLD_TILE`.
* `boxes_at_ends` - `dominocam.vision.layout.AGAINST_OPEN_END`: boxes left out against an open end.
* `search_afar` - `dominocam.vision.pipeline`'s `MIN_TILES_AFAR`: the search in windows.
* `turned_backs` - `dominocam.vision.reader.BACK_SURE`: tiles the reader turns face down.
* `pass_triggers` - how often the close-up and far-tile passes run.
* `realval_passes` - the real scenes with and without each optional stage.
* `review_reasons` - what sends photos to review, by kind.
* `empty_pictures` - what the detector and verifier say of pictures without a tile.
* `stage_profile` - where the time of one read goes, finer than `dominocam bench`.
* `overhead` - the pipeline's own cost, timed with stand-in models (tests/helpers/standin.py).
* `synth_throughput` - images per second of `dominocam synth`.
* `hand_drops` - `dominocam.vision.settings.HAND_REVIEW_REJECTED`: boxes left out of a hand photo.
* `facedown_doubts` - why face-down tiles are doubted (a cause for retraining, no constant).
* `closeup_stages` - which stage of a read loses a close-up of one tile.
* `misread_doubts` - whether a tile read with a wrong value is doubted, and how many read
  right are.
* `verifier_contrast` - doubts on tiles read right, by how far a tile stands out from its
  table (a cause for retraining, no constant).
* `verifier_sensitivity` - the verifier's doubt of synthetic tiles after what a camera does
  (a cast, gamma, blur, sharpening, noise, JPEG): a cause for retraining, no constant.
* `round_simulation` - how often a round is scored wrongly without a question (the ledger).
* `product_reads` - shared by the studies that count what the product says: a measuring set
  read as `dominocam read` reads it.
"""
