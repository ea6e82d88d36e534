"""What every picture shares: the card's colours, the font and the PNG encoding."""

from __future__ import annotations

import io
import math
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

CARD = (43, 45, 49)
"""The card: a dark grey that stands apart from both of Discord's themes."""
PANEL = (56, 58, 64)
LINE = (110, 114, 122)
TEXT = (242, 243, 245)
MUTED = (181, 186, 193)
WIN = (87, 242, 135)
ACCENT = (88, 101, 242)
MARGIN = 16


FONT = Path(__file__).with_name("fonts") / "DejaVuSans.ttf"
"""DejaVu Sans, shipped with the bot (its licence beside it): Pillow's own font has no
accented letters, and a system font differs from machine to machine. It covers Latin,
Greek and Cyrillic names; others (CJK, emoji) show as boxes, the text beside the
picture names them all."""


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(FONT, size)


def new_card(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), CARD)
    return image, ImageDraw.Draw(image)


@lru_cache(maxsize=4096)
def fit(text: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    face = font(size)
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


@lru_cache(maxsize=4096)
def _stamp(text: str, size: int) -> Image.Image:
    """``text`` rendered once as a mask: a bracket redrawn after each result shows the
    same names again, and pasting a mask costs a fraction of rendering the text."""
    face = font(size)
    right, bottom = face.getbbox(text)[2:]
    mask = Image.new("L", (max(1, math.ceil(right)), max(1, math.ceil(bottom))))
    ImageDraw.Draw(mask).text((0, 0), text, fill=255, font=face)
    return mask


def write(image: Image.Image, xy: tuple[float, float], text: str, size: int,
          colour: tuple[int, int, int], width: int) -> None:  # fmt: skip
    """``text`` at ``xy`` in ``colour``, cut to ``width`` pixels."""
    shown = fit(text, size, width)
    if shown:
        image.paste(colour, (round(xy[0]), round(xy[1])), _stamp(shown, size))


COLOURS = 64
"""Palette size of the PNG: the cards' few colours and the shades of their text's edges."""


def png(image: Image.Image) -> bytes:
    """PNG bytes of a palette image: a picture of a few flat colours loses nothing
    visible, and encodes in half the time of full colour (and a third of the bytes)."""
    out = io.BytesIO()
    palette = image.quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE)
    palette.save(out, format="PNG", compress_level=1)
    return out.getvalue()
