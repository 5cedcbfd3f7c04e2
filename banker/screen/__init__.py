"""The live table screen: a local web page showing money, board, what was said and the log.

``Screen`` is what ``banker play`` holds: ``said`` is chained to the session's ``on_say``;
``start`` binds the port and starts the server once the game exists; ``close`` stops it.
Anything that goes wrong (a port in use, an address that can't be bound, no browser) is one
plain sentence on stderr, and the game goes on. The address goes to stderr too, so the
printed game (stdout) stays exactly Mr. Monopoly's lines; it is printed when stderr is a
terminal or a screen option was given (a script that checks stderr for one sentence about a
mistake gets only that sentence).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import secrets
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from banker.screen.feed import Feed
from banker.screen.phones import Phones

if TYPE_CHECKING:
    from banker.interpreter.session import Session
    from banker.screen.server import Server

LOOPBACK = "127.0.0.1"


class Screen:
    """One game's table screen (or nothing at all, with ``enabled=False``)."""

    def __init__(self, port: int | None = None, host: str | None = None, browser: bool = True,
                 err: TextIO | None = None, enabled: bool = True) -> None:
        self.port, self.host, self.browser, self.enabled = port, host, browser, enabled
        self.err = err or sys.stderr
        self.show_address = port is not None or host is not None or not browser or _is_terminal(self.err)
        self.feed = Feed()
        self.phones: Phones | None = None  # the players' phones, once the screen serves
        self.url: str | None = None
        self.token: str | None = None
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def said(self, text: str) -> None:
        """Chained to ``on_say``: called in the game thread after each commit it announces."""
        if self.enabled:
            self.feed.said(text)
            if self.phones is not None:
                self.phones.said(text, self.feed.now.asked)

    def start(self, session: Session, game_path: Path) -> None:
        if not self.enabled:
            return
        try:
            self._start(session, game_path)
        except Exception as exc:  # the table screen must never stop the game
            self._tell(f"The table screen can't start ({_why(exc)}); the game goes on without it.")
            self.enabled = False

    def _start(self, session: Session, game_path: Path) -> None:
        host = self.host or LOOPBACK
        loopback = _is_loopback(host)
        sock, note = _bind(host, self.port)
        if sock is None:
            self._tell(note)
            self.enabled = False
            return
        self.token = None if loopback else secrets.token_urlsafe(16)
        port = sock.getsockname()[1]
        shown = _shown_host(host)
        self.url = f"http://{shown}:{port}/" + (f"?t={self.token}" if self.token else "")
        # phones need a secure page for the microphone: HTTPS off loopback (tls.py)
        phone_url = (f"https://{shown}:{port}/player?t={self.token}" if self.token
                     else f"http://{shown}:{port}/player")
        ed = session.edition
        self.phones = Phones({t: ed.token(t).name for t in session.state.order}, url=phone_url)
        self.feed.attach(session)
        self._thread = threading.Thread(target=self._serve, args=(session, game_path, sock),
                                        name="banker-screen", daemon=True)
        self._thread.start()
        if note:
            self._tell(note)
        elif self.show_address or self.token:
            self._tell(f"The table screen is at {self.url}")
        if self.token:
            self._qr(self.url)
        if self.show_address or self.token:
            accept = (" (the phone warns about the certificate banker made itself: choose Advanced, "
                      "then Proceed)") if self.token else ""
            self._tell(f"Players' phones: open {phone_url}{accept}")
        if self.token:
            self._qr(phone_url)
        if self.browser:
            threading.Thread(target=self._open_browser, name="banker-browser", daemon=True).start()

    def _serve(self, session: Session, game_path: Path, sock: socket.socket) -> None:
        """The screen's thread: the web stack is loaded here, so the game starts at once."""
        try:
            from banker.screen.server import Hub, Server
            from banker.screen.tls import server_context

            hub = Hub(self.feed, session.edition, session.rules, session.base, game_path)
            tls = None
            if self.token:  # off loopback: the phones' page needs HTTPS for the microphone
                try:
                    tls = server_context(_shown_host(self.host or LOOPBACK))
                except Exception as exc:  # the screen and the phones' buttons work without it
                    self._tell(f"The phones' secure page can't start ({_why(exc)}); their microphones "
                               "can't be used, their buttons can.")
            server = Server(hub, sock, self.token, self.phones, tls)
            with self._lock:
                if self._closed:
                    sock.close()
                    return
                self._server = server
                self.feed.listener = hub.wake
            server.run()
        except Exception as exc:  # the table screen must never stop the game
            self._tell(f"The table screen stopped ({_why(exc)}); the game goes on without it.")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            server, self._server = self._server, None
            self.feed.listener = lambda: None
        if server is not None:
            server.stop()
        if self._thread is not None:
            self._thread.join(timeout=3)
            self._thread = None

    def _tell(self, sentence: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(sentence, file=self.err, flush=True)

    def _qr(self, url: str) -> None:
        """The address as a QR code in the terminal, for a tablet's camera."""
        try:
            import segno

            segno.make(url, error="m").terminal(out=self.err, compact=True)
        except Exception:  # no QR code is not worth a word: the address is printed
            return

    def _open_browser(self) -> None:
        if not _has_display():
            return
        import webbrowser

        try:
            ok = webbrowser.open(self.url or "", new=1)
        except Exception:
            ok = False
        if not ok:
            self._tell(f"No browser could be started; open {self.url} to see the table screen.")


def _bind(host: str, port: int | None) -> tuple[socket.socket | None, str]:
    """A listening socket, and a sentence if it isn't the one asked for (or there is none)."""
    try:
        infos = socket.getaddrinfo(host, port or 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, OverflowError):
        return None, f"The table screen can't use the address {host!r}; the game goes on without it."
    family, _t, _p, _c, addr = infos[0]
    try:
        return _listen(family, addr), ""
    except OSError:
        pass
    if not port:
        return None, f"The table screen can't listen on {host}; the game goes on without it."
    try:
        sock = _listen(family, (addr[0], 0, *addr[2:]))
    except OSError:
        return None, f"The table screen can't listen on {host}; the game goes on without it."
    where = f"http://{_shown_host(host)}:{sock.getsockname()[1]}/"
    return sock, (f"Port {port} is already in use (perhaps by another game), so the table screen is at "
                  f"{where} instead.")


def _listen(family: int, addr: tuple[object, ...]) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(16)
    except OSError:
        sock.close()
        raise
    return sock


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _shown_host(host: str) -> str:
    """The address a tablet can reach: for 0.0.0.0, this machine's address on the network."""
    if host in ("0.0.0.0", "::", ""):
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing address
            return str(s.getsockname()[0])
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _why(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text else type(exc).__name__


__all__ = ["Screen"]
