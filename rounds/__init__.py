"""The round's lifecycle: one implementation over a storage interface.

Both modes run a round by the same rules: the single-table dashboard (`dominocam.server.game`,
SQLite) and tournament mode (`dominocam.tournament.rounds`, PostgreSQL). What a round may do and
what it writes lives here, once, with no database: `lifecycle` (the hand lifecycle, the lock, held
rulings, the audit entries), `ledger` (the round's ledger before a ruling), `ledger_words` and
`wording` (their words). Beside them, what turns photos into a round: `scene_state` (table and hand
Scenes -> the round's game state, for both web apps and the command line), `cli` (the `dominocam
round` command: photos -> ledger -> ruling) and `ledger_text` (that command's ledger reports and
words). Below `server` and `tournament`, above `rules` and `vision`.
"""
