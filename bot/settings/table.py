"""Every setting in one table: its name, where it goes, how it is read, what it means.

:meth:`bot.settings.Settings.from_env` reads the settings from this table, ``ttt-bot
--help`` and the docs' settings page are written from it (:mod:`bot.settings.doc`), and
a test checks ``.env.example`` against it. A default lives once, on the dataclass field
the setting fills (:class:`~bot.settings.Settings`, :class:`~bot.core.policy.ServerPolicy`,
:class:`~bot.settings.WebLimits`); the table says only how to show it when it is no value.
The readers (:mod:`bot.settings.read`) get the value as written, stripped and never
empty: an empty or missing setting keeps its default without being read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.core.policy import DIFFICULTIES, EMOJI_SETS, LANGUAGES, SIZES
from bot.settings.read import (
    LOG_FORMATS,
    LOG_LEVELS,
    bounded,
    choice,
    colour,
    discord_id,
    discord_ids,
    discord_url,
    flag,
    language,
    marks,
    one_of,
    postgres_url,
    public_key,
    seconds,
    shard_ids,
    text,
    token,
)


def plain(value: Any) -> str:
    """A default as it would be written in ``.env``; empty when the default is no value."""
    if value is None or value in ("", ()):
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True, slots=True)
class Setting:
    """One environment variable."""

    name: str
    field: str | tuple[str, ...] | None
    """Where the value goes: a field of Settings, ``policy.<field>`` (the per-server
    defaults) or ``web_limits.<field>``; several fields take a tuple; None: read only to
    decide others (TTT_GATEWAY)."""
    read: Callable[..., Any]
    """The value as written (stripped, not empty) and the setting's name, then the values
    of ``needs``, to the value; raises SettingsError naming the setting."""
    meaning: str
    """What it does, as a phrase (Markdown code spans allowed)."""
    shown: str | Callable[[Any], str] = plain
    """The default as the docs and --help show it: from the field's default, or a text."""
    secret: bool = False
    """Its value is never shown: --help prints none, its reader's errors do not echo it,
    and its field is left out of the Settings' repr (a test checks each)."""
    needs: tuple[str, ...] = ()
    """Settings read before this one whose values its reader takes."""
    required: str | None = None
    """The error when it is unset; None: the default applies."""
    unset: Any = None
    """The value when unset, for a setting with no field."""

    @property
    def paths(self) -> tuple[str, ...]:
        """The fields it fills; none for a setting read only to decide others."""
        field = self.field
        return (field,) if isinstance(field, str) else field or ()


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    note: str
    """A sentence about all of them, or empty."""
    settings: tuple[Setting, ...]


def _hex(value: int) -> str:
    return f"#{value:06X}"


DISCORD_TOKEN_MISSING = ("DISCORD_TOKEN is not set: put your bot token in .env (see .env.example) "
                         "or in the environment")  # fmt: skip

# fmt: off
# The order is the order they are read in, so the first malformed one is the one told.
SECTIONS = (
    Section("Required", "", (
        Setting("DISCORD_TOKEN", "token", token, "the bot token (Developer Portal, Bot → Reset "
                "Token)", shown="required", secret=True, required=DISCORD_TOKEN_MISSING),
    )),
    Section("Game rules", "The defaults of every server: its admins may change each for their "
            "server with `/ttt config`.", (
        Setting("TTT_CHALLENGE_TIMEOUT", "policy.challenge_timeout", seconds(),
                "seconds a challenged member has to answer"),
        Setting("TTT_TURN_TIMEOUT", "policy.turn_timeout", seconds(),
                "seconds a player has for each move; whoever lets it run out loses"),
        Setting("TTT_DEFAULT_DIFFICULTY", "policy.default_difficulty", one_of(DIFFICULTIES),
                f"the bot's level when `/ttt start` names none: {', '.join(DIFFICULTIES)}"),
        Setting("TTT_DEFAULT_SIZE", "policy.default_size", choice(SIZES),
                "the board when `/ttt start` names none: 3, 4 or 5"),
        Setting("TTT_ALLOWED_CHANNELS", "policy.allowed_channels", discord_ids,
                "channel ids where games may start, comma-separated", shown="every channel"),
        Setting("TTT_GAMES_PER_CHANNEL", "policy.games_per_channel", choice(tuple(range(1, 11))),
                "games that may run in one channel at once (1 to 10)"),
        Setting("TTT_ONE_GAME_PER_MEMBER", "policy.one_game_per_member", flag,
                "`true`: a member may play one game at a time in a server"),
        Setting("TTT_START_COOLDOWN", "policy.start_cooldown", seconds(allow_zero=True),
                "seconds a member waits between starting two games (0: no wait)"),
        Setting("TTT_START_ROLE", "policy.start_role", discord_id,
                "a role id members need to start games", shown="everyone"),
        Setting("TTT_EMBED_COLOUR", "policy.embed_colour", colour,
                "the colour of the stats, history and leaderboard embeds", shown=_hex),
        Setting("TTT_EMOJI_SET", "policy.emoji_set", one_of(tuple(EMOJI_SETS)),
                f"the marks on the board: {', '.join(EMOJI_SETS)}"),
        Setting("TTT_MARKS", ("policy.mark_x", "policy.mark_o", "policy.mark_empty"), marks,
                "your own marks instead: three different emoji for X, O and an empty square, "
                "separated by spaces (`🐱 🐶 ⬛`; custom ones as `<:name:id>`)",
                shown="the emoji set's, and ⬜"),
        Setting("TTT_LANGUAGE", "policy.language", language,
                f"the language of public messages (boards, challenges, the leaderboard): "
                f"{', '.join(LANGUAGES)}; private replies follow each member's own",
                shown="each server's locale"),
        Setting("TTT_HINTS", "policy.hints", flag, "members may ask for a hint in games "
                "against the bot (a game played with one stays out of the best records)"),
        Setting("TTT_PUZZLES", "policy.puzzles", flag, "members may play /ttt puzzle "
                "(answered privately) and share a result in the channel"),
        Setting("TTT_TURN_PING", "policy.turn_ping", flag, "mention the member to move in a "
                "short message when the turn passes to them (games between members)"),
        Setting("TTT_CORRESPONDENCE_GAMES_IN_SERVER", "policy.correspondence_games",
                bounded(1, 1000), "running correspondence games one member may play at once "
                "in one server (`/ttt config correspondence_games:`); "
                "`TTT_CORRESPONDENCE_GAMES_PER_MEMBER` holds too, the smaller wins",
                shown="unset: only `TTT_CORRESPONDENCE_GAMES_PER_MEMBER`"),
    )),
    Section("The bot", "", (
        Setting("TTT_DATABASE", "database", text, "the SQLite file that keeps everything "
                "(games, records, each server's settings); its folder must exist; one bot "
                "process per file"),
        Setting("TTT_THINK_TIME", "think_time", seconds(),
                "seconds hard and unbeatable may think per move on 5×5 (smaller boards are "
                "solved)"),
        Setting("TTT_ENGINE_WORKERS", "engine_workers", bounded(1, 256),
                "processes searching 4×4 and 5×5 moves; lower it when several bot processes "
                "share a machine", shown="one fewer than the CPUs, at least 1"),
        Setting("TTT_WARM_WORKERS", "warm_workers", flag, "start the hint and review workers "
                "(about 40 MB each) at start-up, so the first hint or review is as fast as any "
                "other; `false`: at first use"),
        Setting("TTT_LOG_LEVEL", "log_level", one_of(LOG_LEVELS, case=str.upper),
                f"how much is logged: {', '.join(LOG_LEVELS)}"),
        Setting("TTT_LOG_FORMAT", "log_format", one_of(LOG_FORMATS), "`text` (one line a "
                "record, colours only on a terminal) or `json` (one object a line)"),
        Setting("TTT_CORRESPONDENCE_GAMES_PER_MEMBER", "correspondence_games_per_member",
                bounded(1, 1000), "running correspondence games (days a move) one member may "
                "play at once, in every server and DM together; past it a challenge or an "
                "accept is refused privately"),
        Setting("TTT_DM_PER_MINUTE", "dm_per_minute", bounded(1, 600), "\"your move\" "
                "reminder DMs this process sends a minute at most, spread evenly (one every "
                "60/N s, never a burst; see Correspondence games under Run)"),
        Setting("TTT_DEV_GUILD_ID", "dev_guild_id", discord_id, "a server id to sync the "
                "slash commands to at once while developing (a global sync can take an hour "
                "to show)"),
    )),
    Section("Several processes", "PostgreSQL shared by several processes, and the "
            "gateway shards each runs.", (
        Setting("TTT_DATABASE_URL", "database_url", postgres_url, "PostgreSQL instead of the "
                "SQLite file, `postgresql://user:password@host:5432/db` (the `postgres` "
                "extra): several processes may share it", secret=True),
        Setting("TTT_DB_POOL_SIZE", "db_pool_size", bounded(1, 100),
                "connections each process keeps to PostgreSQL"),
        Setting("TTT_SHARD_COUNT", "shard_count", bounded(1, 10_000), "gateway shards over "
                "all processes; needs `TTT_DATABASE_URL`", shown="one process, every shard"),
        Setting("TTT_SHARD_IDS", "shard_ids", shard_ids, "the shards this process runs "
                "(`0,2` or `0-3`), each below `TTT_SHARD_COUNT`", shown="all of them",
                needs=("TTT_SHARD_COUNT",)),
    )),
    Section("Health and metrics", "", (
        Setting("TTT_HEALTH_PORT", "health_port", bounded(1, 65535), "serve `/healthz`, "
                "`/readyz` and `/metrics` (Prometheus; the `metrics` extra) on this port",
                shown="off"),
        Setting("TTT_HEALTH_HOST", "health_host", text, "the address the health server "
                "listens on"),
    )),
    Section("The live board and interactions over HTTP", "", (
        Setting("TTT_WEB_PORT", "web_port", bounded(1, 65535), "serve the live board (the "
                "Activity: its page, API and live updates) on this port; needs "
                "`DISCORD_CLIENT_SECRET` or `DISCORD_PUBLIC_KEY`", shown="off"),
        Setting("TTT_WEB_HOST", "web_host", text, "the address the web service listens on"),
        Setting("DISCORD_CLIENT_SECRET", "client_secret", text, "the application's OAuth2 "
                "client secret (Developer Portal, OAuth2): the live board signs members in "
                "with it; set, every process shows the Live board button and syncs the "
                "Activity's entry point command", secret=True),
        Setting("TTT_WEB_ONLY", "web_only", flag, "serve the live board only, without a "
                "gateway connection, beside the bot's processes on the same PostgreSQL (needs "
                "`TTT_WEB_PORT` and `TTT_DATABASE_URL`); with `DISCORD_PUBLIC_KEY` it answers "
                "interactions too, as `TTT_GATEWAY=off`"),
        Setting("DISCORD_PUBLIC_KEY", "public_key", public_key, "the application's public key "
                "(64 hex digits, Developer Portal, General Information): the web service "
                "answers the interactions Discord POSTs to `/interactions`; needs "
                "`TTT_WEB_PORT`"),
        Setting("TTT_GATEWAY", None, flag, "`off`: no gateway connection, every interaction "
                "over HTTP (needs `DISCORD_PUBLIC_KEY`); the commands are synced at start-up "
                "when they changed", shown="on", unset=True),
    )),
    Section("Limits under abuse", "What one process takes on; past a limit, a request is "
            "refused at once with the reason and the wait (only engine work waits its turn "
            "in a fair line). Each live board budget (`_PER_MEMBER`, `_OVERALL`) is requests "
            "a minute, for each member and for everyone together; a member's first hint for "
            "the position in front of them is not counted.", (
        Setting("TTT_WEB_HINTS_PER_MEMBER", "web_limits.hints_per_member", bounded(1, 10**6),
                "hints one member may ask of the live board"),
        Setting("TTT_WEB_HINTS_OVERALL", "web_limits.hints_overall", bounded(1, 10**6),
                "hints all members together may ask of the live board"),
        Setting("TTT_WEB_REVIEWS_PER_MEMBER", "web_limits.reviews_per_member",
                bounded(1, 10**6), "reviews one member may ask of the live board"),
        Setting("TTT_WEB_REVIEWS_OVERALL", "web_limits.reviews_overall", bounded(1, 10**6),
                "reviews all members together may ask of the live board"),
        Setting("TTT_WEB_STARTS_PER_MEMBER", "web_limits.starts_per_member", bounded(1, 10**6),
                "new games and rematches one member may start from the live board"),
        Setting("TTT_WEB_STARTS_OVERALL", "web_limits.starts_overall", bounded(1, 10**6),
                "new games and rematches all members together may start from the live board"),
        Setting("TTT_WEB_PUZZLES_PER_MEMBER", "web_limits.puzzles_per_member",
                bounded(1, 10**6), "puzzle starts, moves and retries one member may send "
                "from the live board"),
        Setting("TTT_WEB_PUZZLES_OVERALL", "web_limits.puzzles_overall", bounded(1, 10**6),
                "puzzle starts, moves and retries all members together may send from the "
                "live board"),
        Setting("TTT_WEB_CONNECTS_PER_MEMBER", "web_limits.connects_per_member",
                bounded(1, 10**6), "live sockets one member may open (a page opens one, and "
                "again after each loss)"),
        Setting("TTT_WEB_CONNECTS_OVERALL", "web_limits.connects_overall", bounded(1, 10**6),
                "live sockets all members together may open"),
        Setting("TTT_WEB_SERVER_SHARE", "web_limits.server_share", bounded(1, 100),
                "the percent of each `_OVERALL` budget one server (a DM: its channel) may "
                "spend a minute, however many of its members ask"),
        Setting("TTT_WEB_PAGES_PER_MEMBER", "web_limits.pages_per_member", bounded(1, 10**6),
                "live sockets one member holds open at once; the next page is told to close "
                "one"),
        Setting("TTT_WEB_PAGES_OVERALL", "web_limits.pages_overall", bounded(1, 10**6),
                "live sockets open in one process, all members together; past it a page is "
                "told to try again in 30 seconds (4029). As many may wait for their first "
                "message; past that the one waiting longest is closed"),
        Setting("TTT_WEB_PAGE_QUEUE", "web_limits.page_queue", bounded(1, 10**6),
                "updates waiting for one page; past that the page is dropped (it reconnects "
                "and gets the whole state)"),
        Setting("TTT_WEB_PRESENCE_EVERY", "web_limits.presence_every", seconds(),
                "seconds between the checks that each open page's member is still in its "
                "Activity (one call to Discord per Activity instance with pages open)"),
        Setting("TTT_WEB_SEND_TIMEOUT", "web_limits.send_timeout", seconds(),
                "seconds one update may take to reach a page before the page is dropped"),
        Setting("TTT_REVIEW_QUEUE", "review_queue", bounded(1, 1000), "reviews past 3×3 the "
                "reviews' worker takes at once (the one running and those queued); as many "
                "more wait their turn, each server's in turn; past that a member of the "
                "busiest server is told at once that the engine is busy"),
        Setting("TTT_HINT_QUEUE", "hint_queue", bounded(1, 1000),
                "hints past 3×3 the hints' worker takes at once; the next wait their turn, "
                "each server's in turn (a hint for the position in front of its member is "
                "never refused)"),
        Setting("TTT_SIGN_INS_OVERALL", "sign_ins_overall", bounded(1, 100_000),
                "live board sign-ins a process begins a minute, all members together (up to "
                "that many at once, then one every 60/N seconds); past it a sign-in is "
                "refused at once (429; the page tries again)"),
        Setting("TTT_SIGN_INS_PER_MEMBER", "sign_ins_per_member", bounded(1, 1_000),
                "live board sign-ins one member completes in ten minutes (then one every "
                "600/N seconds)"),
        Setting("TTT_SIGN_INS_PER_INSTANCE", "sign_ins_per_instance", bounded(1, 100_000),
                "of those a minute, the live board sign-ins one Activity instance begins "
                "(junk naming one running instance leaves the others' members theirs)"),
        Setting("TTT_INSTANCE_LOOKUPS", "instance_lookups", bounded(1, 10_000),
                "reads a minute of Activity instances a sign-in names for the first time "
                "(a call with the bot's token each; as many again for new launches where an "
                "instance ran before); past it such a sign-in is refused at once (429)"),
    )),
    Section("Where Discord is", "", (
        Setting("TTT_DISCORD_EMULATOR", None, flag, "`true`: Discord is the tests' emulator: "
                "`DISCORD_API_BASE` and `DISCORD_GATEWAY_URL` may then be "
                "plain `http://` and `ws://`. Never for a real bot: its token would cross the "
                "network unencrypted", shown="off", unset=False),
        Setting("DISCORD_API_BASE", "api_base", discord_url("https", "http", base=True), "a "
                "Discord-compatible REST API base, `https://`: a proxy in large deployments, "
                "or the tests' emulator", shown="Discord", needs=("TTT_DISCORD_EMULATOR",)),
        Setting("DISCORD_GATEWAY_URL", "gateway_url", discord_url("wss", "ws"), "a "
                "Discord-compatible gateway, `wss://`, likewise", shown="Discord's",
                needs=("TTT_DISCORD_EMULATOR",)),
    )),
)
# fmt: on

SETTINGS: dict[str, Setting] = {s.name: s for section in SECTIONS for s in section.settings}
"""Every setting by name, in the order they are read."""
