"""Each player's wealth over the game, as an SVG chart (built here, shipped as text).

Wealth is the edition's ranking measure after every standing transaction. Each line has its
own dash pattern and its player's name at its end, so colour is never the only mark; the
chart's label says who ended where for a screen reader.
"""

from __future__ import annotations

from html import escape

from banker.editions.model import Edition

W, H, LEFT, RIGHT, TOP, BOTTOM = 900, 420, 110, 150, 20, 50
DASHES = ("", "14 6", "4 6", "18 6 4 6", "2 4", "10 10")


def wealth_chart(edition: Edition, players: list[tuple[str, str]], series: list[list[int]]) -> str:
    """``players``: (name, colour) in seat order; ``series[i][k]``: player k after i transactions."""
    values = [v for row in series for v in row] or [0]
    lo, hi = min(0, *values), max(values)
    hi = hi if hi > lo else lo + 1
    steps = max(1, len(series) - 1)
    inner_w, inner_h = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + inner_w * i / steps

    def y(v: int) -> float:
        return TOP + inner_h * (hi - v) / (hi - lo)

    final = ", ".join(f"{name} {edition.fmt(series[-1][k])}" for k, (name, _c) in enumerate(players)) if series else ""
    label = f"Wealth over the game, {len(series) - 1} transactions. At the end: {final}."
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img" '
             f'aria-label="{escape(label)}" class="chart"><title>{escape(label)}</title>']
    for v in _ticks(lo, hi):
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                     f'<text x="{LEFT - 10}" y="{y(v) + 7:.1f}" text-anchor="end" class="axis">'
                     f'{escape(edition.fmt(v))}</text>')
    parts.append(f'<text x="{LEFT + inner_w / 2}" y="{H - 10}" text-anchor="middle" class="axis">'
                 f'transactions</text>')
    for k, (_name, colour) in enumerate(players):
        points = " ".join(f"{x(i):.1f},{y(row[k]):.1f}" for i, row in enumerate(series))
        dash = f' stroke-dasharray="{DASHES[k % len(DASHES)]}"' if DASHES[k % len(DASHES)] else ""
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="5"{dash}/>')
    # Names at the lines' ends, richest first (top down): a name pushed down to clear the one
    # above never passes a player who ended with less.
    last = -1e9
    for k in sorted(range(len(players)), key=lambda k: -series[-1][k]) if series else []:
        name, colour = players[k]
        last = max(y(series[-1][k]) + 8, last + 26)
        parts.append(f'<text x="{W - RIGHT + 12}" y="{last:.1f}" class="end" fill="{colour}">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _ticks(lo: int, hi: int) -> list[int]:
    """Round values for the grid lines: at most about six."""
    span = hi - lo
    step = next((u * m for m in (1, 10, 100, 1000, 10_000, 100_000, 1_000_000) for u in (1, 2, 5)
                 if span / (u * m) <= 5), 1_000_000)
    start = -(-lo // step) * step
    return list(range(start, hi + 1, step))
