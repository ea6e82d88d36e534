"""Puzzles in the bot: members' attempts, Glicko-2 puzzle ratings, daily streaks and
the server leaderboard, over the engine's proven set (:mod:`engine.puzzles`)."""
