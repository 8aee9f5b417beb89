"""DominoCam: the command line and what the layers share.

The product's layers are the top-level packages `rules` (pure-Python game logic),
`vision` (photos to Scenes), `server` (the Flask dashboard) and `dominosynth`
(synthetic training data, in the folder datasets/). This package only wires them
into one console script, `dominocam`.
"""

__version__ = "0.1.0"
