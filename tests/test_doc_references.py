"""Every document the code, the pages and the docs cite is one the repository holds: the
project's working notes (the rules digest, the design card, the training facts) live outside
it, in ../shared/, which neither a user nor a reader of an installed wheel has. Their content
is in docs/rules.md, docs/design.md and docs/training.md, which are cited instead."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SKIPPED = {".venv", "build", "runs", ".git", ".yolo", "node_modules"}
SUFFIXES = {".py", ".html", ".js", ".md"}
# Written in pieces so that this file does not cite them itself.
OUTSIDE = re.compile(r"\b(?:RULES|DESIGN|TRAINING)\.md\b")


def cited_outside() -> list[str]:
    found = []
    for path in sorted(REPO.rglob("*")):
        relative = path.relative_to(REPO)
        if path.suffix not in SUFFIXES or SKIPPED & set(relative.parts) or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [
            f"{relative}:{number}: {line.strip()}"
            for number, line in enumerate(text.splitlines(), start=1)
            if OUTSIDE.search(line)
        ]
    return found


def test_no_file_cites_a_document_outside_the_repository() -> None:
    assert cited_outside() == []


def test_the_documents_cited_instead_exist() -> None:
    for name in ("rules.md", "design.md", "training.md"):
        assert (REPO / "docs" / name).is_file()
