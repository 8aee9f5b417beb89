"""Serving the dashboard: the production WSGI server (waitress) and the address phones use.

Waitress runs every request on a worker thread from a fixed pool, and a streaming response
(an SSE stream, the MJPEG camera) keeps its thread for as long as it streams. The pool is
therefore sized for the streams the app accepts (`SSE_MAX_STREAMS` and the live camera's
`CAMERA_MAX_STREAMS`, each refused with 503 past it) plus `WORKER_THREADS` for ordinary
requests, so a full house of overlays never starves an upload. The socket loop uses poll(),
not select(), whose 1024-descriptor limit would stop a thousand streams.

Waitress stops accepting connections once `connection_limit` are open, whoever holds them,
so one device holding idle connections could lock every other one out. Two bounds stop it:
one client address holds at most `CONNECTIONS_PER_CLIENT` connections at once (past it a
new one is closed at once, `ClientConnections`), and a connection with no request in
progress is closed after `IDLE_TIMEOUT_S` (waitress' `channel_timeout`; a stream or a slow
upload is not idle). An error waitress answers by itself (a body over twice
`MAX_CONTENT_LENGTH`, a malformed request) is JSON under /api/, as the app's own errors.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import resource
import socket
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from werkzeug.datastructures import LanguageAccept
from werkzeug.http import HTTP_STATUS_CODES, parse_accept_header

from dominocam import i18n as dominocam_i18n
from dominocam.errors import UserInputError
from dominocam.i18n import _


def is_loopback(host: str) -> bool:
    """True when `host` (a name or address to listen on) is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on the local network (the interface of its default route), or
    None without one. Connecting a UDP socket sends no packet: it only picks the route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback else address


# `--host auto` (the default): the local network when this computer is on a private one.
AUTO_HOST = "auto"
EVERY_INTERFACE = "0.0.0.0"
LOOPBACK = "127.0.0.1"


def network_is_private(address: str | None) -> bool:
    """True for an address of a private network (a home or club router's 192.168.x.x,
    10.x.x.x, 172.16-31.x.x, an IPv6 unique-local or link-local one): not a public
    address, which the whole internet may reach."""
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.is_private and not ip.is_loopback and not ip.is_unspecified


def choose_host(host: str, lan: Callable[[], str | None] = lan_address) -> str:
    """The address to listen on for `--host`: any address or name as given; `auto` is every
    interface (0.0.0.0) when this computer's LAN address (`lan`) is a private one, so that
    phones on the network reach the game on the first try, else 127.0.0.1 (no network yet,
    or a public address: the table stays on this computer; `listening` says why)."""
    if host != AUTO_HOST:
        return host
    return EVERY_INTERFACE if network_is_private(lan()) else LOOPBACK


def check_public_url(url: str) -> str:
    """`--public-url` without its trailing slash.

    Raises:
        UserInputError: not an http(s) URL with a host.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserInputError(
            f"--public-url {url!r} is not an address phones can open; "
            "give one like http://192.168.1.20:5000"
        )
    return url.strip().rstrip("/")


def phone_base_url(config: dict[str, Any], request_host_url: str) -> str:
    """The start of the links phones open (player links, QR codes), without a trailing slash.

    In order: `PUBLIC_URL` when configured; the address the host used when it is not a
    loopback one (a phone on the same network can use it too); the machine's LAN address
    when the server listens beyond loopback; else the host's own address (the table page
    then says that phones cannot reach it).
    """
    if config.get("PUBLIC_URL"):
        return str(config["PUBLIC_URL"]).rstrip("/")
    parts = urlsplit(request_host_url)
    if parts.hostname and not is_loopback(parts.hostname) and parts.hostname != "localhost":
        return request_host_url.rstrip("/")
    listen = config.get("LISTEN_HOST")
    if listen and not is_loopback(str(listen)):
        address = str(listen)
        if address in ("0.0.0.0", "::"):
            address = lan_address() or ""
        if address:
            host = f"[{address}]" if ":" in address else address
            port = config.get("LISTEN_PORT") or parts.port
            return f"{parts.scheme}://{host}" + (f":{port}" if port else "")
    return request_host_url.rstrip("/")


def phones_can_reach(base_url: str) -> bool:
    """False when the links point at this machine's loopback address."""
    host = urlsplit(base_url).hostname or ""
    return not (is_loopback(host) or host == "localhost")


def raise_open_files_limit(wanted: int) -> int:
    """Raise the soft limit of open files towards `wanted` (each stream is a socket); the
    limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return int(soft)


def listen_error(host: str, port: int, error: Exception) -> UserInputError:
    """The one-line message for an address that cannot be listened on, naming the option that
    changes it. `error` is what binding raised: an OSError, or waitress' ValueError for a
    host name that does not resolve."""
    if isinstance(error, OSError) and error.errno == errno.EADDRINUSE:
        other = port + 1 if port < 65535 else port - 1
        return UserInputError(
            f"port {port} on {host} is taken (another program or another dashboard): choose "
            f"another with --port, e.g. `dominocam serve --port {other}` or "
            f"`make run PORT={other}`"
        )
    if isinstance(error, OSError) and error.errno == errno.EACCES:
        return UserInputError(
            f"port {port} on {host} needs administrator rights (ports below 1024 usually "
            "do): choose one from 1024 up with --port, e.g. --port 5000"
        )
    if isinstance(error, OSError) and error.errno == errno.EADDRNOTAVAIL:
        return UserInputError(
            f"--host {host} is not an address of this computer: use 127.0.0.1 (this computer "
            "only) or 0.0.0.0 (phones on the local network too)"
        )
    if isinstance(error, ValueError):
        return UserInputError(
            f"--host {host!r} is not an address or name this computer can listen on: use "
            "127.0.0.1 (this computer only) or 0.0.0.0 (phones on the local network too)"
        )
    reason = error.strerror if isinstance(error, OSError) and error.strerror else error
    return UserInputError(f"cannot listen on {host}:{port}: {reason}")


def check_address_free(host: str, port: int) -> None:
    """Bind host:port once and let it go, as waitress will bind it (every address the host
    resolves to, SO_REUSEADDR, IPv6 sockets IPv6-only), so that a taken port is reported
    before anything is written or started (the database, the demo game, the camera). Binding
    a socket that never listened leaves nothing behind for the real bind to trip on.

    Raises:
        UserInputError: the address cannot be listened on (listen_error's message).
    """
    from waitress.adjustments import Adjustments

    try:
        addresses = Adjustments(host=host, port=port).listen
    except ValueError as error:
        raise listen_error(host, port, error) from error
    for family, socktype, proto, sockaddr in addresses:
        with socket.socket(family, socktype, proto) as probe:
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(sockaddr)
            except OSError as error:
                raise listen_error(host, port, error) from error


class ClientConnections:
    """How many connections each client address holds, bounded by `limit` (None: no bound).
    Called from waitress' socket loop and, on shutdown, from another thread."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def admit(self, client: str) -> bool:
        """Count a new connection of `client`; False (not counted) past the limit."""
        with self._lock:
            held = self._open.get(client, 0)
            if self.limit is not None and held >= self.limit:
                return False
            self._open[client] = held + 1
            return True

    def release(self, client: str) -> None:
        with self._lock:
            held = self._open.get(client, 0) - 1
            if held > 0:
                self._open[client] = held
            else:
                self._open.pop(client, None)

    def held(self, client: str) -> int:
        with self._lock:
            return self._open.get(client, 0)


def http_code(status: int) -> str:
    """The code of an HTTP error: `too_large` for 413 (a body over `MAX_CONTENT_LENGTH`),
    else its reason phrase in snake_case (`not_found`, `method_not_allowed`, `bad_request`,
    `internal_server_error`), for the error handlers of both modes and waitress' own errors."""
    if status == 413:
        return "too_large"
    reason = HTTP_STATUS_CODES.get(status, "error")
    return "".join(c if c.isalnum() else "_" for c in reason.lower()).strip("_")


def too_large_message(limit_bytes: int, accept_language: str | None) -> str:
    """The app's 413 message (server._register_errors) in the language the client asks for:
    waitress answers a body over twice the limit before the app sees the request."""
    accepted = parse_accept_header(accept_language or "", LanguageAccept)
    language = (
        accepted.best_match(list(dominocam_i18n.LANGUAGES)) or dominocam_i18n.DEFAULT_LANGUAGE
    )
    with dominocam_i18n.use_language(language):
        return _("the upload is larger than {megabytes} MB; send a smaller photo").format(
            megabytes=limit_bytes // (1024 * 1024)
        )


def guarded_channel(connections: ClientConnections, limit_bytes: int) -> type:
    """Waitress' connection class, bounded per client address (`connections`), answering
    its own errors under /api/ as the app's error JSON (a 413 says `limit_bytes`, the app's
    `MAX_CONTENT_LENGTH`, in the client's language: `too_large_message`)."""
    megabytes = limit_bytes // (1024 * 1024)
    from waitress.channel import HTTPChannel
    from waitress.task import ErrorTask

    class JsonErrorTask(ErrorTask):  # type: ignore[misc]
        def execute(self) -> None:
            if not str(getattr(self.request, "path", "")).startswith("/api/"):
                super().execute()
                return
            error = self.request.error
            message = (
                too_large_message(limit_bytes, self.request.headers.get("ACCEPT_LANGUAGE"))
                if error.code == 413
                else f"{error.reason}: {error.body}"
            )
            body = json.dumps(
                {
                    "error": message,
                    "status": error.code,
                    "code": http_code(error.code),
                    "params": {"megabytes": megabytes} if error.code == 413 else {},
                }
            ).encode()
            self.status = f"{error.code} {error.reason}"
            self.response_headers.append(("Content-Type", "application/json"))
            self.set_close_on_finish()
            self.content_length = len(body)
            self.write(body)

    class GuardedChannel(HTTPChannel):  # type: ignore[misc]
        error_task_class = JsonErrorTask
        client = ""
        counted = False

        def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
            super().__init__(server, sock, addr, adj, map)
            self.client = str(addr[0]) if isinstance(addr, tuple) and addr else str(addr)
            self.counted = connections.admit(self.client)
            if not self.counted:  # this address holds its share: others must get in
                self.handle_close()

        def del_channel(self, map: Any = None) -> None:
            super().del_channel(map)
            if self.counted:
                self.counted = False
                connections.release(self.client)

    return GuardedChannel


def use_channel(server: Any, channel_class: type) -> None:
    """Make every listening socket of a waitress server (one, or several for a name that
    resolves to more than one address) accept its connections as `channel_class`."""
    from waitress.server import BaseWSGIServer

    sockets = getattr(server, "_map", None) or getattr(server, "map", {})
    for dispatcher in list(sockets.values()):
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.channel_class = channel_class


def connection_bounds(per_client: int | None, idle_s: int) -> dict[str, int]:
    """Waitress settings for idle connections: closed after `idle_s` without a request in
    progress, looked at every `idle_s / 2`."""
    if per_client is not None and per_client < 1:
        raise UserInputError(f"CONNECTIONS_PER_CLIENT must be 1 or more, got {per_client}")
    if idle_s < 1:
        raise UserInputError(f"IDLE_TIMEOUT_S must be 1 or more, got {idle_s}")
    return {"channel_timeout": idle_s, "cleanup_interval": max(1, idle_s // 2)}


def create_server(app: Any, host: str, port: int) -> Any:
    """A waitress server for `app` listening on host:port (port 0: any free one; the chosen
    one is `server.effective_port`). Call `.run()` to serve and `.close()` to stop.

    Raises:
        UserInputError: the address cannot be listened on.
    """
    from waitress import create_server as waitress_server

    streams = int(app.config["SSE_MAX_STREAMS"])
    threads = streams + int(app.config["CAMERA_MAX_STREAMS"]) + int(app.config["WORKER_THREADS"])
    raise_open_files_limit(streams + threads + 256)
    per_client = app.config["CONNECTIONS_PER_CLIENT"]
    per_client = None if per_client is None else int(per_client)
    limit = int(app.config["MAX_CONTENT_LENGTH"])
    try:
        server = waitress_server(
            app,
            host=host,
            port=port,
            threads=threads,
            connection_limit=streams + threads,
            # poll(): select() cannot watch descriptors above 1024.
            asyncore_use_poll=True,
            # A body (chunked or not) a little over MAX_CONTENT_LENGTH reaches the app, which
            # answers 413 with its JSON message; waitress cuts off one twice as long.
            max_request_body_size=2 * int(app.config["MAX_CONTENT_LENGTH"]) + 1024 * 1024,
            # A client that stops reading blocks its own stream past this, not the memory.
            outbuf_high_watermark=1024 * 1024,
            ident="DominoCam",
            clear_untrusted_proxy_headers=True,
            **connection_bounds(per_client, int(app.config["IDLE_TIMEOUT_S"])),
        )
    # The port can still be taken between check_address_free and here (another start).
    except (OSError, ValueError) as error:
        raise listen_error(host, port, error) from error
    channel = guarded_channel(ClientConnections(per_client), limit)
    use_channel(server, channel)
    return server


def stop_server(server: Any, timeout_s: float = 5.0) -> None:
    """Close the listening socket and every connection, then end the worker threads."""
    from waitress import wasyncore

    wasyncore.close_all(server._map)
    server.task_dispatcher.shutdown(timeout=timeout_s)
