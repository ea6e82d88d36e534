"""SQLite's migrations 20 to 22, for correspondence games: the pace, courtesy and the
running games by player (``/ttt games``). Listed in order in
:data:`bot.storage.migrations.MIGRATIONS`; the pace and the running games by player are
PostgreSQL's 17 and 19 word for word (courtesy differs in its types and the live
pages' trigger). Never edit a released one."""

from __future__ import annotations

# 20: correspondence games: a game's (and a challenge's) pace in days a move; NULL
# for a live game, on its server's turn timeout. Deadlines stay where they were. A
# correspondence challenge waits days: it holds no channel (one live one pending at
# most, as before).
CORRESPONDENCE = """
    ALTER TABLE games ADD COLUMN days_per_move INTEGER CHECK (days_per_move IN (1, 3, 7));
    ALTER TABLE challenges ADD COLUMN days_per_move INTEGER
        CHECK (days_per_move IN (1, 3, 7));
    DROP INDEX challenges_one_pending_per_channel;
    CREATE UNIQUE INDEX challenges_one_pending_per_channel ON challenges(channel_id)
        WHERE status = 'pending' AND days_per_move IS NULL;
    """


# 21: courtesy. A correspondence game's more time (the ply it was given at; the
# deadline holds it) and its draw offer (by whom, lapsing at which ply); the members
# each member blocked (their challenges declined), found from either side.
SQLITE_COURTESY = """
    ALTER TABLE games ADD COLUMN extra_time_ply INTEGER;
    ALTER TABLE games ADD COLUMN draw_offer_by INTEGER;
    ALTER TABLE games ADD COLUMN draw_offer_until INTEGER;
    CREATE TABLE member_blocks (
        blocker_id INTEGER NOT NULL,
        blocked_id INTEGER NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (blocker_id, blocked_id)
    ) WITHOUT ROWID;
    CREATE INDEX member_blocks_blocked ON member_blocks(blocked_id, blocker_id);
    """


# 22: a member's running games, in every
# place (/ttt games), found by player among every server's: SQLite reads a partial
# index only for a plain equality, so the query asks each side apart (UNION ALL). A
# move sets neither column nor the status: it leaves these indexes alone.
GAMES_BY_PLAYER = """
    CREATE INDEX games_running_by_x ON games(player_x) WHERE status = 'running';
    CREATE INDEX games_running_by_o ON games(player_o) WHERE status = 'running';
    """
