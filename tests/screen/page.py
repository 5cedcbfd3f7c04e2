"""Reading the table screen in Chromium the way a player looks at it (by names and text)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from selenium.webdriver.common.by import By


class Page:
    def __init__(self, driver: Any, url: str) -> None:
        self.d = driver
        self.d.get(url)
        self.until(lambda: self.version() > 0, "the first snapshot")
        self.loaded_at = time.time()
        self.measured: dict[str, float] = {}

    def reload(self) -> None:
        self.delays_ms()  # keep what was measured: the reloaded page sees the old lines anew
        self.loaded_at = time.time()
        self.d.refresh()
        self.until(lambda: self.version() > 0, "the first snapshot after a reload")

    def contrast(self, css: str) -> float:
        """WCAG contrast ratio of an element's text against its section's background."""
        js = """
        const e = document.querySelector(arguments[0]);
        let b = e, bg = 'rgba(0, 0, 0, 0)';
        while (b && (bg = getComputedStyle(b).backgroundColor) === 'rgba(0, 0, 0, 0)') b = b.parentElement;
        return [getComputedStyle(e).color, bg, getComputedStyle(e).opacity];"""
        fg, bg, _op = self.d.execute_script(js, css)

        def lum(rgb: str) -> float:
            parts = [float(v) / 255 for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
            lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in parts]
            return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

        hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    def until(self, cond: Callable[[], Any], what: str, timeout: float = 8.0) -> Any:
        end = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < end:
            try:
                last = cond()
            except Exception as exc:  # the page is being redrawn: look again
                last = exc
            if last and not isinstance(last, Exception):
                return last
            time.sleep(0.03)
        raise AssertionError(f"the page never showed {what} (last: {last!r})\n{self.text('main')[:3000]}")

    def version(self) -> int:
        return int(self.d.find_element(By.TAG_NAME, "body").get_attribute("data-version") or 0)

    def text(self, css: str) -> str:
        return str(self.d.find_element(By.CSS_SELECTOR, css).text)

    def visible(self, css: str) -> bool:
        return bool(self.d.find_element(By.CSS_SELECTOR, css).is_displayed())

    def cash(self, token: str) -> str:
        return self.text(f'li.player[data-token="{token}"] .cash')

    def owner(self, street: str) -> str:
        cell = self.d.find_element(By.CSS_SELECTOR, f'li.street[data-street="{street}"]')
        return str(cell.get_attribute("data-owner"))

    def street_text(self, street: str) -> str:
        return self.text(f'li.street[data-street="{street}"]')

    def undone(self) -> list[str]:
        return [e.text for e in self.d.find_elements(By.CSS_SELECTOR, "#log li.undone del")]

    def delays_ms(self) -> list[float]:
        """For each transaction committed after the page loaded: ms from commit to showing."""
        seen = self.d.execute_script("return window.bankerSeen")
        for e in self.d.find_elements(By.CSS_SELECTOR, "#log li"):
            at = float(e.get_attribute("data-at"))
            seq = str(e.get_attribute("data-seq"))
            if at > self.loaded_at and seq not in self.measured:
                self.measured[seq] = float(seen[seq]) - at * 1000
        return list(self.measured.values())

    def shot(self, path: Any) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        height = self.d.execute_script("return document.querySelector('main').getBoundingClientRect().bottom")
        self.d.set_window_size(1400, max(800, int(height) + 150))  # the window's frame is not page
        self.d.save_screenshot(str(path))
