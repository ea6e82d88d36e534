"""A single-elimination bracket: one column a round, each match a box of two names, the
winner's name lit and a line on to the next round."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.pictures.canvas import LINE, MARGIN, MUTED, PANEL, TEXT, WIN, font, new_card, png, write

BOX_W, BOX_H, GAP_X, GAP_Y, TITLE_H, HEAD_H = 150, 36, 24, 6, 30, 20
NAME_SIZE, HEAD_SIZE, TITLE_SIZE = 12, 12, 16
TITLE_ROOM = 480
"""The widest a bracket grows for its title: a two-player bracket's one column (182
pixels) would cut "Autumn cup — ultimate" short; a longer title is cut at this width."""


@dataclass(frozen=True, slots=True)
class BracketMatch:
    top: str | None
    """The upper player's name; None: not known yet (or a bye)."""
    bottom: str | None
    winner: int | None = None
    """0 (top), 1 (bottom) or None while undecided."""


def draw_bracket(
    title: str, round_names: Sequence[str], rounds: Sequence[Sequence[BracketMatch]]
) -> bytes:
    """The bracket as PNG bytes. ``rounds[0]`` is the first round in bracket order; each
    later round has half as many matches (the final: one)."""
    first = len(rounds[0])
    width = 2 * MARGIN + len(rounds) * BOX_W + (len(rounds) - 1) * GAP_X
    title_w = 2 * MARGIN + math.ceil(font(TITLE_SIZE).getlength(title))
    width = max(width, min(title_w, TITLE_ROOM))
    height = 2 * MARGIN + TITLE_H + HEAD_H + first * BOX_H + (first - 1) * GAP_Y
    image, draw = new_card(width, height)
    write(image, (MARGIN, MARGIN), title, TITLE_SIZE, TEXT, width - 2 * MARGIN)
    top = MARGIN + TITLE_H + HEAD_H
    slot = BOX_H + GAP_Y
    centres: list[float] = [top + i * slot + BOX_H / 2 for i in range(first)]
    for number, matches in enumerate(rounds):
        x = MARGIN + number * (BOX_W + GAP_X)
        name = round_names[number] if number < len(round_names) else ""
        write(image, (x, MARGIN + TITLE_H), name, HEAD_SIZE, MUTED, BOX_W)
        if number:
            centres = [(centres[2 * i] + centres[2 * i + 1]) / 2 for i in range(len(matches))]
        for i, match in enumerate(matches):
            y = centres[i] - BOX_H / 2
            _box(image, draw, x, y, match)
            if number + 1 < len(rounds):  # the line on to the next round's box
                mid_x = x + BOX_W + GAP_X / 2
                draw.line([(x + BOX_W, centres[i]), (mid_x, centres[i])], fill=LINE, width=2)
                partner = centres[i + 1] if i % 2 == 0 else centres[i - 1]
                joined = (centres[i] + partner) / 2
                draw.line([(mid_x, centres[i]), (mid_x, joined)], fill=LINE, width=2)
                draw.line([(mid_x, joined), (x + BOX_W + GAP_X, joined)], fill=LINE, width=2)
    return png(image)


def _box(
    image: Image.Image, draw: ImageDraw.ImageDraw, x: float, y: float, match: BracketMatch
) -> None:
    draw.rounded_rectangle([x, y, x + BOX_W, y + BOX_H], radius=5, fill=PANEL, outline=LINE)
    draw.line([(x + 6, y + BOX_H / 2), (x + BOX_W - 6, y + BOX_H / 2)], fill=LINE)
    for row, name in enumerate((match.top, match.bottom)):
        won = match.winner == row
        lost = match.winner is not None and not won
        colour = WIN if won else MUTED if lost or name is None else TEXT
        shown = name if name is not None else "—"
        write(image, (x + 7, y + 3 + row * BOX_H / 2), shown, NAME_SIZE, colour, BOX_W - 16)
