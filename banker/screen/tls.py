"""HTTPS for the phones: a self-signed certificate, and one port that speaks both.

Browsers give a page the microphone only when it is secure: ``https://``, or plain HTTP on
loopback. Off loopback the screen's port therefore answers TLS too, with a certificate made
once (``cryptography``: an EC P-256 key, self-signed, valid for this machine's names and the
address it is served on) and kept in the user's data folder (``tls/``); a new address
makes a new one. The table screen stays plain HTTP on the same port: each connection's first
byte says which it is (a TLS handshake starts with 0x16, an HTTP request with a letter).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import socket
import ssl
from collections.abc import Callable
from pathlib import Path

from banker.paths import user_data_dir

TLS_FIRST_BYTE = 0x16
FIRST_BYTE_WAIT = 10.0  # s a connection may stay silent before it is closed
VALID_DAYS = 3650


def cert_dir() -> Path:
    return user_data_dir() / "tls"


def _names(host: str) -> list[str]:
    names = [host, "localhost", "127.0.0.1", socket.gethostname()]
    return [n for n in dict.fromkeys(names) if n]


def ensure_certificate(host: str, folder: Path | None = None) -> tuple[Path, Path]:
    """(certificate, key) files for ``host``, made on first use and kept."""
    folder = folder or cert_dir()
    cert, key = folder / "cert.pem", folder / "key.pem"
    if cert.exists() and key.exists() and _covers(cert, host):
        return cert, key
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "banker table (" + host + ")")])
    alt: list[x509.GeneralName] = []
    for name in _names(host):
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name.strip("[]"))))
        except ValueError:
            alt.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.UTC)
    made = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(private.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(private, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    key_bytes = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption())
    key.touch(mode=0o600)
    key.write_bytes(key_bytes)
    cert.write_bytes(made.public_bytes(serialization.Encoding.PEM))
    return cert, key


def _covers(cert: Path, host: str) -> bool:
    """The kept certificate names ``host`` (and can still be read and has not expired)."""
    from cryptography import x509

    try:
        c = x509.load_pem_x509_certificate(cert.read_bytes())
        alt = c.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        names = {str(v) for v in alt.get_values_for_type(x509.IPAddress)}
        names |= set(alt.get_values_for_type(x509.DNSName))
        fresh = c.not_valid_after_utc > datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
        return fresh and host.strip("[]") in names
    except (ValueError, OSError, x509.ExtensionNotFound):
        return False


def server_context(host: str) -> ssl.SSLContext:
    cert, key = ensure_certificate(host)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


async def serve_both(sock: socket.socket, protocol: Callable[[], asyncio.Protocol],
                     tls: ssl.SSLContext | None) -> None:
    """Accept on ``sock`` until cancelled; each connection is TLS or plain by its first byte."""
    loop = asyncio.get_running_loop()
    sock.setblocking(False)
    tasks: set[asyncio.Task[None]] = set()
    while True:
        conn, _addr = await loop.sock_accept(sock)
        task = asyncio.create_task(_route(loop, conn, protocol, tls))
        tasks.add(task)
        task.add_done_callback(tasks.discard)


async def _route(loop: asyncio.AbstractEventLoop, conn: socket.socket,
                 protocol: Callable[[], asyncio.Protocol], tls: ssl.SSLContext | None) -> None:
    try:
        conn.setblocking(False)
        first = await asyncio.wait_for(_peek(loop, conn), FIRST_BYTE_WAIT)
        if not first:
            conn.close()
            return
        use = tls if tls is not None and first[0] == TLS_FIRST_BYTE else None
        await loop.connect_accepted_socket(protocol, conn, ssl=use)
    except (OSError, TimeoutError, ssl.SSLError, ConnectionError):
        with contextlib.suppress(OSError):
            conn.close()


async def _peek(loop: asyncio.AbstractEventLoop, conn: socket.socket) -> bytes:
    ready: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)
    loop.add_reader(conn.fileno(), readable)
    try:
        await ready
    finally:
        loop.remove_reader(conn.fileno())
    return conn.recv(1, socket.MSG_PEEK)
