"""SQLite's migration 13, for ultimate tic-tac-toe (listed in order in
:data:`bot.storage.migrations.MIGRATIONS`; never edit a released one)."""

from __future__ import annotations

# 13: ultimate tic-tac-toe. Games, challenges and tournaments say which game they
# play; ratings and records against the bot are kept apart per game (the key grows,
# so SQLite makes those two tables again).
SQLITE_ULTIMATE = """
    ALTER TABLE games ADD COLUMN variant TEXT NOT NULL DEFAULT 'classic'
        CHECK (variant IN ('classic', 'ultimate'));
    ALTER TABLE challenges ADD COLUMN variant TEXT NOT NULL DEFAULT 'classic'
        CHECK (variant IN ('classic', 'ultimate'));
    ALTER TABLE tournaments ADD COLUMN variant TEXT NOT NULL DEFAULT 'classic'
        CHECK (variant IN ('classic', 'ultimate'));
    ALTER TABLE rating_history ADD COLUMN variant TEXT NOT NULL DEFAULT 'classic';
    CREATE TABLE ratings_new (
        guild_id INTEGER NOT NULL,
        variant TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        rating REAL NOT NULL,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, variant, user_id)
    );
    INSERT INTO ratings_new (guild_id, variant, user_id, rating, wins, losses, draws)
        SELECT guild_id, 'classic', user_id, rating, wins, losses, draws FROM ratings;
    DROP TABLE ratings;
    ALTER TABLE ratings_new RENAME TO ratings;
    CREATE INDEX ratings_by_rating ON ratings(guild_id, variant, rating DESC);
    CREATE TABLE bot_records_new (
        guild_id INTEGER NOT NULL,
        variant TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        difficulty TEXT NOT NULL,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        points INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, variant, difficulty, user_id)
    );
    INSERT INTO bot_records_new
        (guild_id, variant, user_id, difficulty, wins, losses, draws, points)
        SELECT guild_id, 'classic', user_id, difficulty, wins, losses, draws, points
        FROM bot_records;
    DROP TABLE bot_records;
    ALTER TABLE bot_records_new RENAME TO bot_records;
    CREATE INDEX bot_records_best
        ON bot_records(guild_id, variant, difficulty, points DESC, losses);
    """
