"""Measuring DominoCam: the models, the layout reconstruction, the tracker and the speed.

Apart from the runtime on purpose: these modules render synthetic scenes with
`dominosynth`, read labelled photos and time the pipeline, so they import `vision`, but
`vision` never imports them. None of them needs torch; the PNG plots are drawn with
OpenCV.

* `evaluate`, `metrics`, `plots` - `dominocam eval`: the models on synthetic and real photos.
* `bench` - `dominocam bench`: latency per stage of reading a photo.
* `layout_eval` - `dominocam layout-eval`: lines and open ends against synthetic truth.
* `track_eval` - `dominocam track-eval`: the live-table tracker on synthetic game videos.
* `standin`, `overhead` - tiny ONNX graphs standing in for the models, and the pipeline's
  own cost timed with them (`python -m measure.overhead`).
* `synth_throughput` - images per second of `dominocam synth`.
"""
