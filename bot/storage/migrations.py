"""Numbered schema migrations: entry N takes a database from user_version N-1 to N.

Never edit a released entry; append a new one.
"""

from __future__ import annotations

from bot.storage.correspondence_migrations import (
    CORRESPONDENCE,
    GAMES_BY_PLAYER,
    SQLITE_COURTESY,
)
from bot.storage.puzzle_migrations import SQLITE_FORGOTTEN, SQLITE_PUZZLES, SQLITE_PUZZLES_2
from bot.storage.reminder_migrations import REMINDERS_LOCALE, SQLITE_REMINDERS
from bot.storage.ultimate_migrations import SQLITE_ULTIMATE

MIGRATIONS: tuple[str, ...] = (
    # 1: games, challenges and a key-value table for bot state (command sync hash).
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        size INTEGER NOT NULL,
        k INTEGER NOT NULL,
        player_x INTEGER NOT NULL,
        player_o INTEGER NOT NULL,
        bot_side TEXT CHECK (bot_side IN ('X', 'O')),
        difficulty TEXT,
        moves TEXT NOT NULL DEFAULT '',
        ply INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished')),
        result TEXT CHECK (result IN ('X', 'O', 'draw')),
        end_reason TEXT CHECK (end_reason IN ('line', 'draw', 'resign', 'timeout')),
        turn_deadline REAL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL,
        rematch_of INTEGER REFERENCES games(id)
    );
    CREATE UNIQUE INDEX games_one_running_per_channel ON games(channel_id)
        WHERE status = 'running';
    CREATE INDEX games_running_deadline ON games(turn_deadline) WHERE status = 'running';
    CREATE TABLE challenges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        challenger_id INTEGER NOT NULL,
        opponent_id INTEGER NOT NULL,
        x_player TEXT NOT NULL CHECK (x_player IN ('challenger', 'opponent', 'random')),
        size INTEGER NOT NULL,
        k INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'expired')),
        expires_at REAL NOT NULL,
        created_at REAL NOT NULL,
        game_id INTEGER REFERENCES games(id),
        rematch_of INTEGER REFERENCES games(id)
    );
    CREATE UNIQUE INDEX challenges_one_pending_per_channel ON challenges(channel_id)
        WHERE status = 'pending';
    CREATE INDEX challenges_pending_expiry ON challenges(expires_at) WHERE status = 'pending';
    """,
    # 2: players' records. Finished games are kept whole (moves, sides, how they ended);
    # two summary tables make the leaderboard one indexed read instead of a scan.
    """
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        rating REAL NOT NULL,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE INDEX ratings_by_rating ON ratings(guild_id, rating DESC);
    CREATE TABLE bot_records (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        difficulty TEXT NOT NULL,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        points INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, difficulty, user_id)
    );
    CREATE INDEX bot_records_best ON bot_records(guild_id, difficulty, points DESC, losses);
    CREATE INDEX games_finished_by_x ON games(player_x, guild_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_finished_by_o ON games(player_o, guild_id, finished_at)
        WHERE status = 'finished';
    """,
    # 3: a game whose message a moderator deleted ends as 'abandoned', with no result.
    # SQLite cannot change a CHECK in place, so the table is rebuilt (foreign keys are
    # off while migrations run; see bot.storage.sqlite).
    """
    CREATE TABLE games_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        size INTEGER NOT NULL,
        k INTEGER NOT NULL,
        player_x INTEGER NOT NULL,
        player_o INTEGER NOT NULL,
        bot_side TEXT CHECK (bot_side IN ('X', 'O')),
        difficulty TEXT,
        moves TEXT NOT NULL DEFAULT '',
        ply INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished')),
        result TEXT CHECK (result IN ('X', 'O', 'draw')),
        end_reason TEXT
            CHECK (end_reason IN ('line', 'draw', 'resign', 'timeout', 'abandoned')),
        turn_deadline REAL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL,
        rematch_of INTEGER REFERENCES games(id)
    );
    INSERT INTO games_new (
        id, guild_id, channel_id, message_id, size, k, player_x, player_o, bot_side,
        difficulty, moves, ply, status, result, end_reason, turn_deadline, created_at,
        updated_at, finished_at, rematch_of
    ) SELECT
        id, guild_id, channel_id, message_id, size, k, player_x, player_o, bot_side,
        difficulty, moves, ply, status, result, end_reason, turn_deadline, created_at,
        updated_at, finished_at, rematch_of
    FROM games;
    DROP TABLE games;
    ALTER TABLE games_new RENAME TO games;
    CREATE UNIQUE INDEX games_one_running_per_channel ON games(channel_id)
        WHERE status = 'running';
    CREATE INDEX games_running_deadline ON games(turn_deadline) WHERE status = 'running';
    CREATE INDEX games_finished_by_x ON games(player_x, guild_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_finished_by_o ON games(player_o, guild_id, finished_at)
        WHERE status = 'finished';
    """,
    # 4: a server may allow several games per channel; the service enforces the limit.
    """
    DROP INDEX games_one_running_per_channel;
    CREATE INDEX games_running_in_channel ON games(channel_id) WHERE status = 'running';
    """,
    # 5: per-server settings chosen with /ttt config, over the environment's defaults.
    """
    CREATE TABLE guild_settings (
        guild_id INTEGER PRIMARY KEY,
        overrides TEXT NOT NULL
    );
    """,
    # 6: the server's language with each game and challenge, for messages shown without
    # an interaction (a timeout, a restart) by any process.
    """
    ALTER TABLE games ADD COLUMN locale TEXT;
    ALTER TABLE challenges ADD COLUMN locale TEXT;
    """,
    # 7: a game may be stopped by a moderator (no result) and remembers who did; a game
    # carries whether a hint was shown in it and its turn-ping message; a challenge may be
    # open to anyone (no opponent). Both CHECK and NOT NULL changes need a rebuild in
    # SQLite (foreign keys are off while migrations run; see bot.storage.sqlite).
    """
    CREATE TABLE games_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        size INTEGER NOT NULL,
        k INTEGER NOT NULL,
        player_x INTEGER NOT NULL,
        player_o INTEGER NOT NULL,
        bot_side TEXT CHECK (bot_side IN ('X', 'O')),
        difficulty TEXT,
        moves TEXT NOT NULL DEFAULT '',
        ply INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished')),
        result TEXT CHECK (result IN ('X', 'O', 'draw')),
        end_reason TEXT CHECK (end_reason IN
            ('line', 'draw', 'resign', 'timeout', 'abandoned', 'stopped')),
        turn_deadline REAL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL,
        rematch_of INTEGER REFERENCES games(id),
        locale TEXT,
        hinted INTEGER NOT NULL DEFAULT 0,
        ping_message_id INTEGER,
        stopped_by INTEGER
    );
    INSERT INTO games_new (
        id, guild_id, channel_id, message_id, size, k, player_x, player_o, bot_side,
        difficulty, moves, ply, status, result, end_reason, turn_deadline, created_at,
        updated_at, finished_at, rematch_of, locale
    ) SELECT
        id, guild_id, channel_id, message_id, size, k, player_x, player_o, bot_side,
        difficulty, moves, ply, status, result, end_reason, turn_deadline, created_at,
        updated_at, finished_at, rematch_of, locale
    FROM games;
    DROP TABLE games;
    ALTER TABLE games_new RENAME TO games;
    CREATE INDEX games_running_in_channel ON games(channel_id) WHERE status = 'running';
    CREATE INDEX games_running_deadline ON games(turn_deadline) WHERE status = 'running';
    CREATE INDEX games_finished_by_x ON games(player_x, guild_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_finished_by_o ON games(player_o, guild_id, finished_at)
        WHERE status = 'finished';
    CREATE TABLE challenges_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        challenger_id INTEGER NOT NULL,
        opponent_id INTEGER,
        x_player TEXT NOT NULL CHECK (x_player IN ('challenger', 'opponent', 'random')),
        size INTEGER NOT NULL,
        k INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'expired')),
        expires_at REAL NOT NULL,
        created_at REAL NOT NULL,
        game_id INTEGER REFERENCES games(id),
        rematch_of INTEGER REFERENCES games(id),
        locale TEXT
    );
    INSERT INTO challenges_new SELECT
        id, guild_id, channel_id, message_id, challenger_id, opponent_id, x_player, size, k,
        status, expires_at, created_at, game_id, rematch_of, locale
    FROM challenges;
    DROP TABLE challenges;
    ALTER TABLE challenges_new RENAME TO challenges;
    CREATE UNIQUE INDEX challenges_one_pending_per_channel ON challenges(channel_id)
        WHERE status = 'pending';
    CREATE INDEX challenges_pending_expiry ON challenges(expires_at) WHERE status = 'pending';
    """,
    # 8: the deadline claims PostgreSQL has had since its first schema, so that one query
    # serves both (on SQLite a claim lasts no time: one process per file).
    """
    ALTER TABLE games ADD COLUMN claimed_until REAL;
    ALTER TABLE challenges ADD COLUMN claimed_until REAL;
    """,
    # 9: games and challenges where only a member's own install of ttt reaches (DMs
    # between users, group DMs, servers that did not add the bot): shown only through
    # interaction tokens, kept with their expiry so any process can use them.
    """
    ALTER TABLE games ADD COLUMN guest INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN guest INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE reply_tokens (
        kind TEXT NOT NULL CHECK (kind IN ('game', 'challenge')),
        item_id INTEGER NOT NULL,
        token TEXT NOT NULL,
        expires_at REAL NOT NULL,
        PRIMARY KEY (kind, item_id)
    );
    CREATE INDEX reply_tokens_expiry ON reply_tokens(expires_at);
    """,
    # 10: each member's rating after every rated game, for the chart in /ttt stats (no
    # foreign key: a member who forgets themselves takes their games, not the rating
    # their opponents had after them).
    """
    CREATE TABLE rating_history (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        game_id INTEGER NOT NULL,
        rating_before REAL NOT NULL,
        rating_after REAL NOT NULL,
        PRIMARY KEY (guild_id, user_id, game_id)
    );
    """,
    # 11: tournaments: sign-up, seeded players, matches (a thread each) and their games.
    """
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        organiser_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('single', 'round_robin', 'swiss')),
        rounds INTEGER NOT NULL,
        size INTEGER NOT NULL,
        best_of INTEGER NOT NULL CHECK (best_of IN (1, 3)),
        max_players INTEGER NOT NULL,
        signup_closes_at REAL,
        show_up REAL NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
        round INTEGER NOT NULL,
        created_at REAL NOT NULL,
        locale TEXT,
        champion INTEGER
    );
    CREATE UNIQUE INDEX tournaments_one_active_per_channel ON tournaments(channel_id)
        WHERE status IN ('signup', 'running');
    CREATE TABLE tournament_players (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        joined_at REAL NOT NULL,
        seed INTEGER,
        removed INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, user_id)
    );
    CREATE TABLE tournament_matches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        number INTEGER NOT NULL,
        first INTEGER NOT NULL,
        second INTEGER,
        status TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'done')),
        start_by REAL,
        first_ready INTEGER NOT NULL DEFAULT 0,
        second_ready INTEGER NOT NULL DEFAULT 0,
        result TEXT CHECK (result IN ('first', 'second', 'draw', 'none')),
        forfeit INTEGER NOT NULL DEFAULT 0,
        thread_id INTEGER,
        message_id INTEGER,
        claimed_until REAL,
        UNIQUE (tournament_id, number)
    );
    CREATE INDEX tournament_matches_waiting ON tournament_matches(start_by)
        WHERE status = 'waiting';
    CREATE INDEX tournament_matches_thread ON tournament_matches(thread_id);
    ALTER TABLE games ADD COLUMN tournament_match_id INTEGER REFERENCES tournament_matches(id);
    CREATE INDEX games_of_match ON games(tournament_match_id)
        WHERE tournament_match_id IS NOT NULL;
    """,
    # 12: a channel's latest interaction token too (kind 'channel', its id the channel's):
    # a game a page starts where only a member's own install reaches is posted through it.
    # SQLite cannot widen a CHECK: the table is made again.
    """
    CREATE TABLE reply_tokens_new (
        kind TEXT NOT NULL CHECK (kind IN ('game', 'challenge', 'channel')),
        item_id INTEGER NOT NULL,
        token TEXT NOT NULL,
        expires_at REAL NOT NULL,
        PRIMARY KEY (kind, item_id)
    );
    INSERT INTO reply_tokens_new (kind, item_id, token, expires_at)
        SELECT kind, item_id, token, expires_at FROM reply_tokens;
    DROP TABLE reply_tokens;
    ALTER TABLE reply_tokens_new RENAME TO reply_tokens;
    CREATE INDEX reply_tokens_expiry ON reply_tokens(expires_at);
    """,
    SQLITE_ULTIMATE,  # 13: ultimate tic-tac-toe (ultimate_migrations.py)
    # 14: the interactions that came over HTTP, each claimed by the first process it
    # reached, so that a replayed request is answered by none (bot/web/replays.py). The
    # id is the rowid: a claim is one insert into one b-tree, and old claims (the
    # lowest snowflakes) go by a range of it.
    """
    CREATE TABLE interaction_claims (interaction_id INTEGER PRIMARY KEY);
    """,
    # 15: finished games' reviews, worked out once (4×4, 5×5 and ultimate take seconds)
    # and read by every process: the core's JSON, kept as it wrote it.
    """
    CREATE TABLE reviews (
        game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        body TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    """,
    SQLITE_PUZZLES,  # 16: puzzles' attempts and ratings (bot/storage/puzzle_migrations.py)
    # 17: each member's not-before stamp: the Activity's sessions issued before it are
    # refused by every process (forget-me and a ban set it; bot/web/sessions.py).
    """
    CREATE TABLE session_revocations (
        user_id INTEGER PRIMARY KEY,
        not_before REAL NOT NULL
    );
    """,
    SQLITE_PUZZLES_2,  # 18: puzzles' time away, 'withdrawn' and Share once (the same file)
    SQLITE_FORGOTTEN,  # 19: the puzzles a forgotten member tried, as keyed hashes (the same)
    CORRESPONDENCE,  # 20: a game's pace in days (correspondence_migrations.py)
    SQLITE_COURTESY,  # 21: more time, draw offers, blocks (the same file)
    GAMES_BY_PLAYER,  # 22: running games by player, for /ttt games (the same)
    SQLITE_REMINDERS,  # 23: "your move" reminders and their outbox (reminder_migrations.py)
    REMINDERS_LOCALE,  # 24: the language a member chose reminders in (the same file)
)
