"""Serving the dashboard: the production WSGI server (waitress) and the address phones use.

Waitress runs every request on a worker thread from a fixed pool, and a streaming response
(an SSE stream, the MJPEG camera) keeps its thread for as long as it streams. The pool is
therefore sized for the streams the app accepts (`SSE_MAX_STREAMS` and the live camera's
`CAMERA_MAX_STREAMS`, each refused with 503 past it) plus `WORKER_THREADS` for ordinary
requests, so a full house of overlays never starves an upload. The socket loop uses poll(),
not select(), whose 1024-descriptor limit would stop a thousand streams.
"""

from __future__ import annotations

import errno
import ipaddress
import resource
import socket
from typing import Any
from urllib.parse import urlsplit

from dominocam.errors import UserInputError


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
    try:
        return waitress_server(
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
            channel_timeout=max(120, int(app.config["SSE_HEARTBEAT_S"]) * 4),
            ident="DominoCam",
            clear_untrusted_proxy_headers=True,
        )
    # The port can still be taken between check_address_free and here (another start).
    except (OSError, ValueError) as error:
        raise listen_error(host, port, error) from error


def stop_server(server: Any, timeout_s: float = 5.0) -> None:
    """Close the listening socket and every connection, then end the worker threads."""
    from waitress import wasyncore

    wasyncore.close_all(server._map)
    server.task_dispatcher.shutdown(timeout=timeout_s)
