"""The first ear's phone loop on a decoder of its own, decoded beside the grammar's search.

Receives the same 16 kHz int16 audio, normalisation mode and start values the grammar's
search gets; returns the phone loop's segments as ``pocketsphinx.Decoder.seg()`` gives them
(phone, first frame, last frame, acoustic score as a probability).

Why: pocketsphinx's Python binding holds Python's lock while it decodes, so each turn's two
passes (the grammar's search, then the free phone loop that measures the confidence) ran one
after the other, 30-90 ms each, on one of the two cores. ctypes lets go of the lock for each
call into the library, so this decoder, driven through the library's own C functions (the
same extension module, the same configuration: the first decoder's own, serialised), decodes
on the second core while the grammar's search runs on the first. The numbers are the same bit
for bit (tested against the binding's pass). Anything missing (another pocketsphinx build)
raises ``PhoneLoopUnavailable`` and the phone loop is decoded in turn as before.
"""

from __future__ import annotations

import ctypes
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from banker.speech.base import Pcm

Segment = tuple[str, int, int, float]  # phone, first frame, last frame, acoustic score
SEARCH = b"_phones"


class PhoneLoopUnavailable(Exception):
    """The library's C functions are not reachable here (one plain sentence)."""


def _library() -> Any:
    """The pocketsphinx extension module as a C library (already loaded: the same copy)."""
    try:
        from pocketsphinx import _pocketsphinx

        lib = ctypes.CDLL(str(_pocketsphinx.__file__))
        c, p, i, s = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        sigs: dict[str, tuple[Any, list[Any]]] = {
            "ps_config_parse_json": (p, [p, c]), "ps_config_set_str": (c, [p, c, c]),
            "ps_config_free": (i, [p]), "ps_init": (p, [p]), "ps_free": (i, [p]),
            "ps_add_allphone_file": (i, [p, c, c]), "ps_activate_search": (i, [p, c]),
            "ps_reinit_feat": (i, [p, p]), "ps_set_cmn": (i, [p, c]),
            "ps_start_utt": (i, [p]), "ps_end_utt": (i, [p]),
            "ps_process_raw": (i, [p, p, s, i, i]), "ps_seg_iter": (p, [p]),
            "ps_seg_next": (p, [p]), "ps_seg_word": (c, [p]),
            "ps_seg_frames": (None, [p, ctypes.POINTER(i), ctypes.POINTER(i)]),
            "ps_seg_prob": (ctypes.c_int32, [p] + [ctypes.POINTER(ctypes.c_int32)] * 3),
            "ps_get_logmath": (p, [p]), "logmath_exp": (ctypes.c_double, [p, i]),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        return lib
    except (ImportError, OSError, AttributeError) as exc:
        raise PhoneLoopUnavailable(f"The phone loop cannot run on its own here: {exc}.") from None


class PhoneLoop:
    """A pocketsphinx decoder with only the phone loop, decoding on a thread of its own."""

    def __init__(self, config_json: str, phone_lm: Path, dict_line: str) -> None:
        """``config_json``: the first decoder's configuration (``Config.dumps()``);
        ``dict_line``: one word of its dictionary (the loop reads phones, not words; the
        decoder only needs a dictionary to start)."""
        self.lib = lib = _library()
        config = json.loads(config_json)
        fd, path = tempfile.mkstemp(prefix="banker-phones-", suffix=".dict")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(dict_line + "\n")
            config["dict"] = path
            self.config = lib.ps_config_parse_json(None, json.dumps(config).encode())
            if not self.config:
                raise PhoneLoopUnavailable("The phone loop's configuration was not accepted.")
            self.ps = lib.ps_init(self.config)
        finally:
            os.unlink(path)
        if not self.ps or lib.ps_add_allphone_file(self.ps, SEARCH, str(phone_lm).encode()) < 0:
            raise PhoneLoopUnavailable("The phone loop's decoder did not start.")
        lib.ps_activate_search(self.ps, SEARCH)
        self.mode = str(config.get("cmn", "batch"))
        self._thread: threading.Thread | None = None
        self._found: list[Segment] | None = None
        self._error: str = ""

    def start(self, pcm: Pcm, mode: str, cmn: str) -> None:
        """Decode ``pcm`` (normalised by ``mode``, from the means ``cmn``) on a thread."""
        self._wait()  # the last one finished first (one decode at a time); its result,
        # or failure, is not wanted: the turn it was for ended before the grammar's reading
        data = np.ascontiguousarray(pcm, dtype=np.int16)
        self._found, self._error = None, ""
        going = threading.Event()
        self._thread = threading.Thread(target=self._decode, args=(data, mode, cmn, going),
                                        name="phone-loop", daemon=True)
        self._thread.start()
        # until it is inside the library: the binding's decode, next on this thread, holds
        # Python's lock for its whole length, and would keep this one from starting
        going.wait(1.0)

    def _wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def segments(self) -> list[Segment]:
        """The segments of the decode ``start`` began (waits for it); [] when none."""
        self._wait()
        if self._error:
            raise RuntimeError(self._error)
        return self._found or []

    def _decode(self, data: Pcm, mode: str, cmn: str, going: threading.Event) -> None:
        lib, ps = self.lib, self.ps
        try:
            if mode != self.mode:  # as the binding's ``config["cmn"] = mode``
                lib.ps_config_set_str(self.config, b"cmn", mode.encode())
                self.mode = mode
            ok = (lib.ps_reinit_feat(ps, None) >= 0 and lib.ps_set_cmn(ps, cmn.encode()) == 0
                  and lib.ps_start_utt(ps) >= 0)
            address, n = data.ctypes.data, len(data)
            going.set()
            ok = (ok and lib.ps_process_raw(ps, address, n, 0, 1) >= 0
                  and lib.ps_end_utt(ps) >= 0)
            if not ok:
                self._error = "The phone loop could not decode the turn."
                return
            self._found = self._read()
        except Exception as exc:  # reported by ``segments``, on the caller's thread
            self._error = f"The phone loop failed: {exc}"
        finally:
            going.set()

    def _read(self) -> list[Segment]:
        lib, ps = self.lib, self.ps
        lmath = lib.ps_get_logmath(ps)
        out: list[Segment] = []
        seg = lib.ps_seg_iter(ps)
        sf, ef = ctypes.c_int(), ctypes.c_int()
        ascr, lscr, lback = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
        while seg:
            word = (lib.ps_seg_word(seg) or b"").decode("utf-8")
            lib.ps_seg_frames(seg, ctypes.byref(sf), ctypes.byref(ef))
            lib.ps_seg_prob(seg, ctypes.byref(ascr), ctypes.byref(lscr), ctypes.byref(lback))
            out.append((word, sf.value, ef.value, float(lib.logmath_exp(lmath, ascr.value))))
            seg = lib.ps_seg_next(seg)  # frees the iterator at the end
        return out

    def close(self) -> None:
        self._wait()
        if self.ps:
            self.lib.ps_free(self.ps)
            self.ps = None
        if self.config:
            self.lib.ps_config_free(self.config)
            self.config = None
