"""Where a form may send the browser back to: a path on this site, nothing else.

`/login?next=…`, the first-run page and the language picker go back to the page they came
from. A `next` that leaves the site is an open redirect (a link to this dashboard that lands
on a look-alike login page elsewhere). Browsers read more than `//host` as another site:
`/\\host`, and `/<TAB>/host` (tabs and newlines are dropped from URLs), so a target is kept
only when it is plainly a path: it starts with a single `/`, holds no backslash, no
whitespace and no control character, and has no scheme or host however it is split.
"""

from __future__ import annotations

from urllib.parse import urlsplit

HOME = "/"


def same_site_path(text: str | None) -> str:
    """`text` when it is a path (and query) on this site, else `/`."""
    target = text or HOME
    if not target.startswith("/") or target.startswith("//"):
        return HOME
    if "\\" in target or any(ch.isspace() or not ch.isprintable() for ch in target):
        return HOME
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return HOME
    return target
