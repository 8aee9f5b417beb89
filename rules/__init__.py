"""The rules engine: pure Python, no OpenCV or numpy.

Tiles and sets (`tiles`), the layout's lines and open ends (`layout`), variants as data
(`variants`), the blocked-game check and its clockwise verification (`blocked`),
scoring (`scoring`) and rounds accumulated over a game (`game`).
"""
