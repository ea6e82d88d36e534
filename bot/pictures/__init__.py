"""Pictures: the tournament bracket, a standings table and a rating chart as PNG bytes.

Pure drawing with Pillow (no Discord, no storage): callers hand in plain, already
translated text, and send the bytes as an attachment. Every picture sits on an opaque
card, so it reads the same in Discord's light and dark themes; the same facts always go
beside it as text for screen readers and text-only clients. Drawing takes milliseconds
but is CPU work: run it off the event loop (``asyncio.to_thread``).
"""

from bot.pictures.bracket import BracketMatch, draw_bracket
from bot.pictures.chart import draw_rating_chart
from bot.pictures.table import draw_table

__all__ = ["BracketMatch", "draw_bracket", "draw_rating_chart", "draw_table"]
