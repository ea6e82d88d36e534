"""A standings table: a header row and one row a player, the leader's row marked."""

from __future__ import annotations

from collections.abc import Sequence

from bot.pictures.canvas import ACCENT, LINE, MARGIN, MUTED, PANEL, TEXT, new_card, png, write

ROW_H, TITLE_H, SIZE, TITLE_SIZE = 26, 34, 14, 18
RANK_W, NAME_W, COLUMN_W = 44, 200, 96


def draw_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> bytes:
    """The table as PNG bytes: ``header`` and each row are its cells: the rank, the
    player's name, then figures; the first row is the leader."""
    widths = [RANK_W, NAME_W, *[COLUMN_W] * (len(header) - 2)]
    width = 2 * MARGIN + sum(widths)
    height = 2 * MARGIN + TITLE_H + (len(rows) + 1) * ROW_H
    image, draw = new_card(width, height)
    write(image, (MARGIN, MARGIN), title, TITLE_SIZE, TEXT, width - 2 * MARGIN)
    y = MARGIN + TITLE_H
    for number, cells in enumerate([header, *rows]):
        if number % 2 == 0 and number:
            draw.rectangle([MARGIN, y, width - MARGIN, y + ROW_H], fill=PANEL)
        if number == 1:
            draw.rectangle([MARGIN, y, MARGIN + 3, y + ROW_H], fill=ACCENT)
        x = MARGIN
        for column, cell in enumerate(cells):
            colour = MUTED if number == 0 else TEXT
            write(image, (x + 8, y + 5), cell, SIZE, colour, widths[column] - 12)
            x += widths[column]
        if number == 0:
            draw.line([(MARGIN, y + ROW_H), (width - MARGIN, y + ROW_H)], fill=LINE, width=1)
        y += ROW_H
    return png(image)
