"""Measuring DominoCam: the commands that measure the product and fit its calibration.

Apart from the runtime on purpose: these modules render synthetic scenes with
`dominosynth`, read labelled photos and time the pipeline, so they import `vision`, but
`vision` never imports them. None of them needs torch; the PNG plots are drawn with
OpenCV. The one-off studies that chose single constants are not here: they are `studies/`,
outside the product (docs/design.md, "Layers").

* `evaluate` - `dominocam eval`: the models on synthetic and real photos; `scoring` (how one
  picture is scored), `truth` (the labelled sets), `metrics` (rates, box matching, the
  reliability diagram), `plots` and `gates` (the issue's gates) serve it.
* `calibrate` - `dominocam calibrate`: the tile probability fitted and its thresholds chosen.
* `bench` - `dominocam bench`: latency per stage of reading a photo.
* `layout_eval` - `dominocam layout-eval`: lines and open ends against synthetic truth.
* `track_eval` - `dominocam track-eval`: the live-table tracker on synthetic game videos.
* `cli` - the subcommands above but `calibrate` (registered by its own module).
"""
