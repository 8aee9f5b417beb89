"""`dominomodels`: the bundled ONNX models and their cards, installed as package data.

This folder is installed under the name `dominomodels` (pyproject.toml maps it), so that
`dominocam.vision.onnx_model` finds `detector.onnx` and `reader.onnx` with importlib.resources in a
checkout and in an installed wheel alike. It holds no code; the Python in `dominotrain/`
is a package of its own.
"""
