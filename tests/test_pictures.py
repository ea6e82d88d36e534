"""The pictures, checked as pictures: they decode as PNG, have the size their layout
gives, and match their references (``tests/sample_pictures.py`` redraws those) within a
tolerance that absorbs font-rendering differences between machines, not a change."""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image, ImageChops, ImageStat

from bot.pictures import BracketMatch, draw_bracket, draw_table
from bot.pictures.canvas import font

import sample_pictures as samples

MEAN_TOLERANCE = 1.5
"""Mean absolute difference per channel (0-255) allowed against a reference."""


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image.convert("RGB")


def difference(a: Image.Image, b: Image.Image) -> float:
    assert a.size == b.size
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_each_picture_matches_its_reference(name: str) -> None:
    drawn = decoded(samples.SAMPLES[name]())
    reference = decoded((samples.REFERENCES / f"{name}.png").read_bytes())
    assert difference(drawn, reference) <= MEAN_TOLERANCE


def test_the_comparison_sees_a_changed_picture() -> None:
    reference = decoded((samples.REFERENCES / "table.png").read_bytes())
    rows = [[str(i + 1), "Somebody else", "9.5", "0.0"] for i in range(6)]
    changed = decoded(
        draw_table("Swiss — after round 3", ["#", "Player", "Points", "Buchholz"], rows)
    )
    assert difference(changed, reference) > MEAN_TOLERANCE


def test_a_32_player_bracket_has_the_size_of_its_layout_and_long_names_fit() -> None:
    names = [f"A rather long display name number {i}" for i in range(32)]
    rounds = [[BracketMatch(a, b) for a, b in zip(names[::2], names[1::2], strict=True)]]
    size = 16
    while size > 1:
        size //= 2
        rounds.append([BracketMatch(None, None) for _ in range(size)])
    image = decoded(draw_bracket("Cup", ["R1", "R2", "R3", "R4", "R5", "Final"], rounds))
    # 16 + 5 columns of 150 + 4 gaps of 24 + 16 wide; 16 + 30 + 20 + 16 boxes of 36 and
    # 15 gaps of 6 + 16 high: a long name is cut, never widens the picture
    assert image.size == (878, 748)
    assert len(image.getcolors(1 << 16) or []) > 8  # text and lines, not a blank card


def test_a_small_bracket_widens_for_its_title_up_to_a_limit() -> None:
    final = [[BracketMatch("Amélie", "Bruno")]]
    assert decoded(draw_bracket("Cup", ["Final"], final)).size == (182, 118)  # its layout
    title = "Autumn cup — ultimate"
    wide = decoded(draw_bracket(title, ["Final"], final))
    assert wide.size == (2 * 16 + math.ceil(font(16).getlength(title)), 118)
    assert wide.size[0] > 182
    assert decoded(draw_bracket("A very long tournament name " * 4, ["Final"], final)).size == (
        480,
        118,
    )


def test_a_rating_chart_of_a_single_rating_is_still_drawn() -> None:
    from bot.pictures import draw_rating_chart

    image = decoded(draw_rating_chart("Léa — rating", [1000.0], "no rated games yet"))
    assert image.size == (480, 220)
