"""Token buttons: terminal keys and (where present) input devices, as press/release events.

Receives key strokes and typed text; gives ``ButtonEvent``s for the keys mapped in
``config/banker.yaml`` ``buttons:`` (key -> seat number, 1 = first player in turn order) and
whole typed lines for everything else, so typed commands work alongside the buttons.

- A terminal (a TTY) is read key by key: a mapped key on an empty line is a press; any other
  key starts a typed line (echoed, Backspace works, Enter sends it).
- A pipe is read line by line: a line holding just a mapped key is a press.
- Input devices (``evdev``, optional) report presses *and* releases: hold-to-talk.

The fake boundary in tests is the physical USB device only: tests write key strokes into the
stream this module reads, and the real code path runs from there.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TextIO

Kind = Literal["press", "release"]


@dataclass(frozen=True)
class ButtonEvent:
    """A token button went down (``press``) or up (``release``)."""

    key: str  # as written in the config (``"1"``)
    kind: Kind
    source: str  # ``terminal`` | ``evdev``
    time: float


class Buttons(Protocol):
    """A source of button events. ``holds``: it reports releases (hold-to-talk)."""

    holds: bool

    def start(self, on_event: Callable[[ButtonEvent], None]) -> None: ...
    def close(self) -> None: ...


def key_map(config: Mapping[str, Any]) -> dict[str, int]:
    """``buttons:`` of the config as {key: seat}; default keys 1-8 for seats 1-8."""
    raw = config.get("buttons")
    if not isinstance(raw, Mapping) or not raw:
        return {str(i): i for i in range(1, 9)}
    return {str(k).lower(): int(v) for k, v in raw.items()}


# ------------------------------------------------------------------------------------------
# the terminal (or a pipe standing in for one)

class TerminalKeys:
    """Keys and typed lines from one input stream.

    ``on_line`` gets each typed line (without the newline); ``on_eof`` is called once at
    the end of input (Ctrl-D on an empty line, or the end of a pipe).
    """

    holds = False

    def __init__(self, stream: TextIO, keys: Mapping[str, int], on_line: Callable[[str], None],
                 on_eof: Callable[[], None], echo: TextIO | None = None,
                 is_live_key: Callable[[str], bool] | None = None) -> None:
        self.stream = stream
        self.keys = {k.lower() for k in keys}
        self.on_line = on_line
        self.on_eof = on_eof
        self.echo = echo
        self.is_live_key = is_live_key or (lambda _k: True)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._saved: Any = None
        try:
            self.fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.tty = self.fd is not None and os.isatty(self.fd)

    def start(self, on_event: Callable[[ButtonEvent], None]) -> None:
        self._on_event = on_event
        if self.tty:
            self._cbreak()
        target = self._read_chars if self.tty else self._read_lines
        self._thread = threading.Thread(target=target, name="terminal-keys", daemon=True)
        self._thread.start()

    def _press(self, key: str) -> None:
        self._on_event(ButtonEvent(key, "press", "terminal", time.monotonic()))

    def _is_button(self, text: str) -> bool:
        k = text.strip().lower()
        return k in self.keys and self.is_live_key(k)

    def _read_lines(self) -> None:
        for raw in self.stream:
            if self._stop.is_set():
                return
            line = raw.rstrip("\r\n")
            if self._is_button(line):
                self._press(line.strip().lower())
            else:
                self.on_line(line)
        if not self._stop.is_set():
            self.on_eof()

    def _cbreak(self) -> None:
        import termios
        import tty

        assert self.fd is not None
        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)

    def _restore(self) -> None:
        if self._saved is not None and self.fd is not None:
            import termios

            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def _chars(self) -> Iterator[str]:
        assert self.fd is not None
        while not self._stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            data = os.read(self.fd, 1024)
            if not data:
                return
            yield from data.decode("utf-8", "replace")

    def _show(self, text: str) -> None:
        if self.echo is not None:
            self.echo.write(text)
            self.echo.flush()

    def _read_chars(self) -> None:
        """Key by key, with a one-line editor (cbreak mode turns the terminal's own off)."""
        line = ""
        for ch in self._chars():
            if ch in "\r\n":
                self._show("\n")
                self.on_line(line)
                line = ""
            elif ch == "\x04":  # Ctrl-D
                if not line:
                    break
            elif ch in "\x7f\x08":
                if line:
                    line = line[:-1]
                    self._show("\b \b")
            elif ch == "\x15":  # Ctrl-U
                self._show("\b \b" * len(line))
                line = ""
            elif not line and self._is_button(ch):
                self._press(ch.lower())
            elif ch.isprintable():
                line += ch
                self._show(ch)
        self._restore()
        if not self._stop.is_set():
            self.on_eof()

    def close(self) -> None:
        self._stop.set()
        self._restore()


# ------------------------------------------------------------------------------------------
# input devices (USB buttons, keypads): optional

def _evdev_code(key: str) -> str:
    k = key.upper()
    return k if k.startswith(("KEY_", "BTN_")) else f"KEY_{k}"


class EvdevButtons:
    """Buttons read from ``/dev/input`` with python-evdev: presses and releases.

    Only devices that have one of the mapped keys are read; none found means this source
    simply stays silent (the terminal keys still work).
    """

    holds = True

    def __init__(self, keys: Mapping[str, int]) -> None:
        import importlib

        evdev = importlib.import_module("evdev")  # optional: ImportError = no input devices

        self._evdev = evdev
        self.codes: dict[int, str] = {}
        for k in keys:
            code = getattr(evdev.ecodes, _evdev_code(k), None)
            if isinstance(code, int):
                self.codes[code] = k.lower()
        self.devices: list[Any] = []
        for path in evdev.list_devices():
            try:
                dev = evdev.InputDevice(path)
                caps = dev.capabilities().get(evdev.ecodes.EV_KEY, [])
            except OSError:
                continue
            if any(c in caps for c in self.codes):
                self.devices.append(dev)
            else:
                dev.close()
        self._stop = threading.Event()

    def start(self, on_event: Callable[[ButtonEvent], None]) -> None:
        for dev in self.devices:
            threading.Thread(target=self._read, args=(dev, on_event), daemon=True,
                             name=f"evdev-{dev.path}").start()

    def _read(self, dev: Any, on_event: Callable[[ButtonEvent], None]) -> None:
        try:
            for ev in dev.read_loop():
                if self._stop.is_set():
                    return
                if ev.type != self._evdev.ecodes.EV_KEY or ev.code not in self.codes:
                    continue
                if ev.value in (0, 1):  # 2 is auto-repeat while held
                    on_event(ButtonEvent(self.codes[ev.code], "press" if ev.value else "release",
                                         "evdev", time.monotonic()))
        except OSError:  # unplugged: the other buttons keep working
            return

    def close(self) -> None:
        self._stop.set()
        for dev in self.devices:
            with contextlib.suppress(OSError):
                dev.close()


def input_devices(keys: Mapping[str, int]) -> list[Buttons]:
    """Evdev button sources, or none (no python-evdev, no permission, no such device)."""
    try:
        ev = EvdevButtons(keys)
    except (ImportError, OSError):
        return []
    return [ev] if ev.devices else []
