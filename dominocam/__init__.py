"""DominoCam: the product's package, under which every room of the house is installed.

Its own modules are the ground floor every layer shares (`errors`, `i18n`, `arguments`) and
the top, the `dominocam` console script (`cli`, `__main__`). The rooms between them keep their
top-level folders and are reached here through links: `dominocam.rules` (pure-Python game
logic, rules/), `dominocam.vision` (photos to Scenes), `dominocam.rounds` (the round's
lifecycle), `dominocam.server` (the Flask dashboard), `dominocam.tournament` and
`dominocam.measure` (docs/design.md, "Layers").
"""

__version__ = "0.1.0"
