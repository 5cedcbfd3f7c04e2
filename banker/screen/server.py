"""The screen's web server: Starlette routes served by uvicorn in a thread of its own.

The game thread only wakes the server (``Hub.wake``: one thread-safe call); reading the
journal, folding and sending happen in the server's thread, and a reader never blocks a
commit (SQLite WAL). Updates go out as server-sent events; the table screen is read-only (GET
only, nothing on it moves money). The players' page (``/player``) is a token button: its
WebSocket (``/phone``, ``phone_socket``) carries presses and microphone sound to the game.
Off loopback every route but the static assets needs the random token of the printed
address, else 403; on loopback the Host header must name loopback (a web page elsewhere
can't read the game through DNS rebinding).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from banker.editions.model import Edition
from banker.rules import GameState, Rules
from banker.screen.feed import Feed
from banker.screen.journal_view import JournalView
from banker.screen.phone_socket import phone_socket
from banker.screen.phones import Phones
from banker.screen.snapshot import Folder, build
from banker.screen.tls import serve_both

ASSETS = Path(__file__).parent / "assets"
KEEPALIVE = 15.0
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})


class Hub:
    """The latest snapshot and the pages waiting for the next one (lives in the server's loop)."""

    def __init__(self, feed: Feed, edition: Edition, rules: Rules, base: GameState, path: Path) -> None:
        self.feed, self.edition, self.rules = feed, edition, rules
        self.view = JournalView(path)
        self.folder = Folder(rules, base)
        self.version = 0
        self.text = "{}"
        self.loop: asyncio.AbstractEventLoop | None = None
        self._dirty: asyncio.Event | None = None
        self._clients: set[asyncio.Queue[str | None]] = set()

    def wake(self) -> None:
        """From any thread: something was said; rebuild soon. Never blocks."""
        loop, dirty = self.loop, self._dirty
        if loop is not None and dirty is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closing: nothing to show
                loop.call_soon_threadsafe(dirty.set)

    def render(self) -> str:
        """The newest snapshot as JSON; if building it fails, the last good one (the page keeps
        showing the table, and the next line said tries again)."""
        try:
            self.view.refresh()
            self.version += 1
            snap: dict[str, Any] = build(self.edition, self.rules, self.folder, self.view, self.feed.now,
                                         self.version)
            self.text = json.dumps(snap, separators=(",", ":"))
        except Exception:
            self.folder.reset()  # don't fold on from a state a failure may have left half done
        return self.text

    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._dirty = asyncio.Event()
        self._dirty.set()
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            text = self.render()
            for q in list(self._clients):
                _offer(q, text)

    def subscribe(self) -> asyncio.Queue[str | None]:
        q: asyncio.Queue[str | None] = asyncio.Queue(maxsize=1)
        self._clients.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[str | None]) -> None:
        self._clients.discard(q)

    def close_clients(self) -> None:
        for q in list(self._clients):
            _offer(q, None)


def _offer(q: asyncio.Queue[str | None], item: str | None) -> None:
    """Only the newest snapshot matters: a slow page skips the ones it missed."""
    if q.full():
        q.get_nowait()
    q.put_nowait(item)


def make_app(hub: Hub, token: str | None, phones: Phones | None = None) -> Starlette:
    phones = phones or Phones()

    def refused(request: HTTPConnection) -> Response | None:
        if token is not None:
            if not secrets.compare_digest(request.query_params.get("t", ""), token):
                return PlainTextResponse("This table screen needs the address with its key, as banker printed it.",
                                         status_code=403)
        elif request.url.hostname not in LOOPBACK_HOSTS:
            return PlainTextResponse("This table screen only answers on this computer.", status_code=403)
        return None

    async def page(request: Request) -> Response:
        return refused(request) or FileResponse(ASSETS / "index.html", headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> Response:
        return refused(request) or JSONResponse(json.loads(hub.render()), headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        no = refused(request)
        if no is not None:
            return no

        async def stream() -> AsyncIterator[str]:
            q = hub.subscribe()
            try:
                yield f"data: {hub.render()}\n\n"
                while True:
                    try:
                        item = await asyncio.wait_for(q.get(), KEEPALIVE)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    if item is None:
                        return
                    yield f"data: {item}\n\n"
            finally:
                hub.unsubscribe(q)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def player(request: Request) -> Response:
        return refused(request) or FileResponse(ASSETS / "player.html", headers={"Cache-Control": "no-store"})

    async def phones_info(request: Request) -> Response:
        """The players' address and its QR code, for the table screen to show."""
        no = refused(request)
        if no is not None:
            return no
        return JSONResponse({"url": phones.url, "qr": _qr_svg(phones.url)}, headers={"Cache-Control": "no-store"})

    async def phone(ws: WebSocket) -> None:
        origin = ws.headers.get("origin")
        if refused(ws) is not None or (origin and urlsplit(origin).netloc != ws.headers.get("host")):
            await ws.close(code=1008)  # another site's page must not press anyone's button
            return
        await phone_socket(ws, hub, phones)

    return Starlette(routes=[Route("/", page), Route("/state", state), Route("/events", events),
                             Route("/player", player), Route("/phones", phones_info),
                             WebSocketRoute("/phone", phone),
                             Mount("/assets", StaticFiles(directory=ASSETS), name="assets")])


def _qr_svg(url: str) -> str:
    """The address as an SVG data URI ("" without one)."""
    if not url:
        return ""
    try:
        import segno

        return str(segno.make(url, error="m").svg_data_uri(scale=4, dark="#111", light="#fff"))
    except Exception:  # no QR code: the address is shown as text
        return ""


class Server:
    """uvicorn on an already bound socket, run in the calling thread with its own event loop."""

    def __init__(self, hub: Hub, sock: socket.socket, token: str | None, phones: Phones | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        self.hub = hub
        self.sock = sock
        self.tls = tls
        config = uvicorn.Config(make_app(hub, token, phones), log_config=None, log_level="critical",
                                access_log=False, lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)

    def run(self) -> None:
        """Serve until ``stop`` (blocks: call it in the screen's own thread)."""
        try:
            asyncio.run(self._main())
        finally:
            with contextlib.suppress(OSError):
                self.sock.close()

    async def _main(self) -> None:
        """uvicorn serves the connections that ``tls.serve_both`` accepts (plain or TLS)."""
        builder = asyncio.create_task(self.hub.run())
        serving = asyncio.create_task(self.server.serve(sockets=[]))
        accepting: asyncio.Task[None] | None = None
        try:
            while not self.server.started and not serving.done():
                await asyncio.sleep(0.01)
            accepting = asyncio.create_task(serve_both(self.sock, self._protocol, self.tls))
            await serving
        finally:
            builder.cancel()
            if accepting is not None:
                accepting.cancel()

    def _protocol(self) -> asyncio.Protocol:
        """A uvicorn connection, as its own listener would make it."""
        config, server = self.server.config, self.server
        made: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
            config=config, server_state=server.server_state, app_state=server.lifespan.state,
            _loop=asyncio.get_running_loop())
        return made

    def stop(self) -> None:
        """From any thread: end the open pages' streams and the server."""
        loop = self.hub.loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.hub.close_clients)
        self.server.should_exit = True
