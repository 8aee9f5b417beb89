"""Synthetic domino tables, hands and labels for training the vision models.

The folder is datasets/ (docs/design.md, "Layers") but the package is named dominosynth, because a
top-level `datasets` package would shadow the popular PyPI package of that name.
"""

__version__ = "0.4.1"
