"""Training, export and evaluation of the vision models (the `train` extra).

The folder is models/ (docs/design.md, "Layers": the committed ONNX models and the code
that makes them); the package is named dominotrain because a top-level `models` package would
shadow many others. ultralytics and torch are imported lazily inside the functions that need them.
"""
