"""The words a page shows a reader, and which of them are English: shared by the tests that
no page of single-table mode (tests/server/test_server_setup_words.py, the browser walk) or
of tournament mode (tests/tournament/test_tournament_words.py) shows an English word in
Hungarian, Italian, Vietnamese or Spanish, and that no message is left in English."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Common English words of the pages (none of them a word of hu, it, vi or es).
_ENGLISH_WORDS = """the and of to for with your you game games player players round rounds
    hand hands
    tile tiles points pips yes create new name settings default source who what when where
    how many wins win blocked block draw boneyard train trains double score scores rules
    house usually back table save cancel delete open finished active others lowest team
    teams none nobody each every only variant photo upload confirm check send print log
    start next end ended founding text mexican chicken foot spinner fives"""
ENGLISH = frozenset(_ENGLISH_WORDS.split())
# Words players of these languages keep as they are.
KEPT = frozenset({"DominoCam", "Bergen", "Muggins", "Hoyle", "Wikipedia", "domino", "spinner"})
# A web site named as a rule's source (`pagat.com`): a name, not words.
SITE = re.compile(r"\S+\.(?:com|net|org|nl|za)\b")


class _Visible(HTMLParser):
    """The text a reader sees: text outside scripts and styles, placeholders and titles."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        for name, value in attrs:
            if name in ("placeholder", "title", "aria-label", "alt") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden and data.strip():
            self.parts.append(data.strip())


def visible(html: str) -> str:
    parser = _Visible()
    parser.feed(html)
    return "\n".join(parser.parts)


def english_in(text: str) -> list[str]:
    words = re.findall(r"[^\W\d_]+", SITE.sub("", text))
    return sorted({w for w in words if w.lower() in ENGLISH and w not in KEPT})


# A message whose translation may be its English text: names, words the languages share.
SAME_ALLOWED = {
    "hu": {"Bergen", "Overlay", "overlay", "DominoCam overlay", "null"},
    "it": {"Bergen", "Overlay", "overlay", "null", "domino", "Domino", "no", "No", "Set"},
    "vi": {"Bergen", "null", "domino"},
    "es": {"Bergen", "Overlay", "overlay", "null", "no", "No", "Total"},
}
