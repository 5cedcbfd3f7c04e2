"""The phones' WebSocket: one per open player's page, in the screen server's loop.

Page to server: JSON text messages ``{"hello": phone_id}`` (first), ``{"claim": token}``,
``{"leave": true}``, ``{"press": true}``, ``{"release": true}``, ``{"mic": "asking"|"on"|"off"}``,
``{"ping": n}``; binary messages are the microphone's 16 kHz mono int16 little-endian samples.
Server to page: ``{"type": "phone", ...}`` (``Phones.view``: the token held, the tokens taken,
the last line said to this player, whether the turn is being listened to),
``{"type": "players", "players": [...]}`` (token, name, colour, cash as said, from each
snapshot), ``{"type": "refused", "text": ...}`` and ``{"type": "pong"}``.

A page that goes silent for ``SILENT_AFTER`` seconds (it pings every second) has lost its
connection: the socket is closed and the phone counts as lost (``Phones.disconnect``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from banker.screen.phones import Phones

if TYPE_CHECKING:
    from banker.screen.server import Hub

SILENT_AFTER = 5.0  # s without a message from the page: its connection is lost
GOING_AWAY = 1001  # the page was closed or left (RFC 6455)
MAX_ID = 64


def players_message(snapshot: str) -> dict[str, Any]:
    try:
        snap = json.loads(snapshot)
    except ValueError:
        snap = {}
    return {"type": "players", "players": [
        {"token": p["token"], "name": p["name"], "colour": p["colour"], "cash": p["cash_text"]}
        for p in snap.get("players", [])]}


async def phone_socket(ws: WebSocket, hub: Hub, phones: Phones) -> None:
    await ws.accept()
    loop = asyncio.get_running_loop()
    outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def send(msg: dict[str, Any]) -> None:  # from any thread
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(outbox.put_nowait, msg)

    try:
        hello = json.loads(await asyncio.wait_for(ws.receive_text(), SILENT_AFTER))
        phone_id = str(hello.get("hello", ""))[:MAX_ID] if isinstance(hello, dict) else ""
    except (TimeoutError, ValueError, WebSocketDisconnect, KeyError, RuntimeError):
        with contextlib.suppress(Exception):
            await ws.close()
        return
    if not phone_id:
        await ws.close(code=1008)
        return
    snapshots = hub.subscribe()
    phones.connect(phone_id, send)
    send(players_message(hub.render()))
    tasks = [asyncio.create_task(_writer(ws, outbox)), asyncio.create_task(_snapshots(snapshots, send))]
    left = False
    try:
        left = await _reader(ws, phones, phone_id, send)
    finally:
        hub.unsubscribe(snapshots)
        phones.disconnect(phone_id, left, send)
        outbox.put_nowait(None)
        for t in tasks:
            t.cancel()
        with contextlib.suppress(Exception):
            await ws.close()


async def _reader(ws: WebSocket, phones: Phones, phone_id: str, send: Any) -> bool:
    """Messages until the socket closes; True when the page left (rather than was lost)."""
    while True:
        try:
            msg = await asyncio.wait_for(ws.receive(), SILENT_AFTER)
        except (TimeoutError, RuntimeError):
            return False
        if msg["type"] == "websocket.disconnect":
            return int(msg.get("code") or 1000) in (GOING_AWAY, 1000)
        data = msg.get("bytes")
        if data:
            phones.audio(phone_id, data)
            continue
        try:
            m = json.loads(msg.get("text") or "")
        except ValueError:
            continue
        if isinstance(m, dict):
            _handle(m, phones, phone_id, send)


def _handle(m: dict[str, Any], phones: Phones, phone_id: str, send: Any) -> None:
    if "claim" in m:
        phones.claim(phone_id, str(m["claim"]))
    elif "leave" in m:
        phones.leave(phone_id)
    elif "press" in m:
        phones.press(phone_id)
    elif "release" in m:
        phones.release(phone_id)
    elif "mic" in m:
        phones.mic(phone_id, str(m["mic"]))
    elif "ping" in m:
        send({"type": "pong"})


async def _writer(ws: WebSocket, outbox: asyncio.Queue[dict[str, Any] | None]) -> None:
    while True:
        msg = await outbox.get()
        if msg is None:
            return
        try:
            await ws.send_text(json.dumps(msg, separators=(",", ":")))
        except Exception:  # the socket is closing: the reader notices
            return


async def _snapshots(q: asyncio.Queue[str | None], send: Any) -> None:
    while True:
        item = await q.get()
        if item is None:
            return
        send(players_message(item))
