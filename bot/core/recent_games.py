"""The running games as this process last stored them: a click on the latest board of
one of them needs no read. Whatever this process stores goes through here; a write that
failed, or a game another process may have changed, is forgotten, so the next click
reads what is stored."""

from __future__ import annotations

from collections import OrderedDict

from bot.core.models import Game

RECENT_GAMES = 10_000  # running games remembered as last stored: a click needs no read


class RecentGames:
    """At most :data:`RECENT_GAMES` running games, the least recently stored forgotten."""

    def __init__(self, size: int = RECENT_GAMES) -> None:
        self._games: OrderedDict[int, Game] = OrderedDict()
        self._size = size

    def get(self, game_id: int) -> Game | None:
        return self._games.get(game_id)

    def clicked(self, game_id: int, ply: int, message_id: int | None) -> Game | None:
        """The game as last stored if a click at ``ply`` on ``message_id`` was made on
        it (its position, and its board or one not yet known); else None: read it."""
        game = self._games.get(game_id)
        if game is not None and game.ply == ply and game.message_id in (None, message_id):
            return game
        return None

    def remember(self, game: Game) -> None:
        """``game`` as just stored: kept while it runs, forgotten once it ended."""
        self._games.pop(game.id, None)
        if game.running:
            self._games[game.id] = game
            if len(self._games) > self._size:
                self._games.popitem(last=False)

    def forget(self, game_id: int) -> None:
        self._games.pop(game_id, None)

    def forget_player(self, user_id: int) -> None:
        """Forget the games ``user_id`` plays (stored again since: their reminders)."""
        for game in [g for g in self._games.values() if user_id in (g.player_x, g.player_o)]:
            del self._games[game.id]

    def message_attached(self, game: Game, message_id: int) -> None:
        """``game``'s board is now ``message_id`` (as a rule the game kept is ``game``
        itself; a newer one kept keeps its moves)."""
        known = self._games.get(game.id)
        if known is not None:
            self._games[game.id] = (game if known is game else known).with_changes(
                message_id=message_id
            )
