"""The names the dashboard answers to: a guard against DNS rebinding.

A page on `evil.example` can make its name resolve to this computer (127.0.0.1, or the LAN
address of a dashboard started with `--host 0.0.0.0`); the browser then treats the
dashboard as part of `evil.example` and lets that page read its answers: the first-run
page's nonce, then an admin session. What gives the trick away is the `Host` header: it
still says `evil.example`. So every request must name the dashboard by

* an IP address (127.0.0.1, ::1, 192.168.1.20...): rebinding needs a name the attacker's
  DNS answers for, and an address is no name;
* `localhost` or a name under `.localhost` (browsers resolve those themselves);
* the name it listens on (`--host NAME`), the host of `--public-url`, this computer's own
  names (its host name, its fully qualified name, and NAME.local, as mDNS announces it), or
  a name listed in `ALLOWED_HOSTS` (a reverse proxy's name, say);

or it gets 400. A request without a Host header (HTTP/1.0, scripts) comes from no browser
page and is let through. Serving the local network (`--host auto`, the default, or 0.0.0.0)
changes none of this: phones open the LAN address the player links carry.

The first-run page, which makes the first admin session, asks more (`names_loopback`): a
loopback name (127.0.0.1, [::1], localhost), not even this computer's own name.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

# A Host header: a DNS name or an IPv4 address, or an IPv6 address in brackets; a port.
_HOST = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?")
_WILDCARDS = ("0.0.0.0", "::", "")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def allowed_names(
    listen_host: str | None, public_url: str | None, extra: Iterable[str] | str = ()
) -> frozenset[str]:
    """The names (lower case, no trailing dot) requests may use besides IP addresses and
    `localhost`: the listening name, the public URL's host, this computer's name, `extra`
    (a list, or one text with commas: `DOMINOCAM_ALLOWED_HOSTS=a.example,b.example`)."""
    if isinstance(extra, str):
        extra = [name.strip() for name in extra.split(",")]
    names = {"localhost"}
    if listen_host and listen_host not in _WILDCARDS and not _is_address(listen_host):
        names.add(listen_host)
    if public_url:
        names.add(urlsplit(public_url).hostname or "")
    machine = socket.gethostname()
    names.update({machine, machine.split(".")[0], f"{machine.split('.')[0]}.local"})
    names.add(_fully_qualified(machine))
    names.update(extra)
    return frozenset(n.lower().rstrip(".") for n in names if n)


@functools.lru_cache(maxsize=4)
def _fully_qualified(machine: str) -> str:
    """This computer's fully qualified name, as the resolver knows it (asked once per
    process); "" without one."""
    try:
        name = socket.getfqdn(machine)
    except (OSError, UnicodeError):
        return ""
    return "" if name == "localhost" or name.endswith(".localhost") else name


def names_loopback(header: str | None) -> bool:
    """True when a Host header calls the dashboard by a loopback name or address: 127.x.y.z,
    [::1], `localhost` or a name under `.localhost` (browsers resolve those to this computer
    themselves, so no DNS answer can rebind them). A missing header is not one."""
    if header is None:
        return False
    match = _HOST.fullmatch(header.strip())
    if match is None:
        return False
    name = match["name"].lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    if name.startswith("[") != name.endswith("]"):
        return False
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def host_allowed(header: str | None, names: frozenset[str]) -> bool:
    """True when a request's Host header names this dashboard (see the module docstring)."""
    if header is None:
        return True
    match = _HOST.fullmatch(header.strip())
    if match is None:
        return False
    name = match["name"].lower().rstrip(".")
    if name.startswith("["):
        return _is_address(name)
    return _is_address(name) or name in names or name == "localhost" or name.endswith(".localhost")
