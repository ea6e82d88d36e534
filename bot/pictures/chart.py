"""A member's rating over time: a line over their rated games, the first and last value
and the range named on the axis."""

from __future__ import annotations

from collections.abc import Sequence

from bot.pictures.canvas import ACCENT, LINE, MARGIN, MUTED, TEXT, new_card, png, write

WIDTH, HEIGHT, TITLE_H, AXIS_W, SIZE, TITLE_SIZE = 480, 220, 30, 48, 12, 16


def draw_rating_chart(title: str, ratings: Sequence[float], caption: str = "") -> bytes:
    """The chart as PNG bytes: ``ratings`` in the order the games were played (the first
    the rating before any game); ``caption`` under the axis (say, "12 games")."""
    image, draw = new_card(WIDTH, HEIGHT)
    write(image, (MARGIN, MARGIN), title, TITLE_SIZE, TEXT, WIDTH - 2 * MARGIN)
    left, right = MARGIN + AXIS_W, WIDTH - MARGIN
    top, bottom = MARGIN + TITLE_H, HEIGHT - MARGIN - 18
    low, high = min(ratings), max(ratings)
    if high - low < 20:  # a flat line in the middle, not noise blown up
        low, high = (low + high) / 2 - 10, (low + high) / 2 + 10
    draw.line([(left, top), (left, bottom), (right, bottom)], fill=LINE, width=1)
    for value in (high, low):
        y = bottom - (value - low) / (high - low) * (bottom - top)
        write(image, (MARGIN, y - 7), f"{value:.0f}", SIZE, MUTED, AXIS_W - 6)
        draw.line([(left - 3, y), (left, y)], fill=LINE)
    steps = max(1, len(ratings) - 1)
    points = [
        (left + i / steps * (right - left), bottom - (r - low) / (high - low) * (bottom - top))
        for i, r in enumerate(ratings)
    ]
    if len(points) > 1:
        draw.line(points, fill=ACCENT, width=3, joint="curve")
    last = points[-1]
    draw.ellipse([last[0] - 4, last[1] - 4, last[0] + 4, last[1] + 4], fill=TEXT)
    write(image, (left, bottom + 3), caption, SIZE, MUTED, right - left)
    return png(image)
