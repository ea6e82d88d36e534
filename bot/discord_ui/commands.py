"""The /ttt slash commands. They route to the controllers; nothing is decided here.

Every name, description and choice is a catalog key (see ``bot.i18n.translator``), so Discord
shows each member the commands in their own language.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.command_choices import (
    BEST_OF_CHOICES,
    DIFFICULTY_CHOICES,
    EMOJI_CHOICES,
    FIRST_CHOICES,
    FORMAT_CHOICES,
    GAME_CHOICES,
    LANGUAGE_CHOICES,
    LEADERBOARD_CHOICES,
    NOTIFY_CHOICES,
    PACE_CHOICES,
    PUZZLE_BOARDS,
    PUZZLE_MODES,
    SIZE_CHOICES,
    L,
    chosen_variant,
    name,
)
from bot.discord_ui.config_controller import ConfigController
from bot.discord_ui.courtesy_controller import CourtesyController
from bot.discord_ui.game_controller import GameController
from bot.discord_ui.games_list_controller import GamesListController
from bot.discord_ui.moderation_controller import ModerationController
from bot.discord_ui.notify_controller import NotifyController
from bot.discord_ui.puzzle_controller import PuzzleController
from bot.discord_ui.records_controller import RecordsController
from bot.discord_ui.responder import server_only
from bot.discord_ui.tournament_controller import TournamentController


# Everywhere: servers and the bot's DMs through a server install; DMs between members,
# group DMs and servers that never added ttt through a member's own install (User
# Install). Discord applies contexts to the whole group: the subcommands that need a
# server that added ttt say so elsewhere (``server_only``).
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
@app_commands.allowed_installs(guilds=True, users=True)
class TicTacToe(commands.GroupCog, group_name=name("ttt"), group_description=L("cmd.group")):
    def __init__(
        self, games: GameController, records: RecordsController, config: ConfigController,
        moderation: ModerationController, tournaments: TournamentController,
        puzzles: PuzzleController, lists: GamesListController,
        courtesy: CourtesyController, notify: NotifyController,
    ) -> None:  # fmt: skip
        # underscored: the public names are the commands themselves (``config``...)
        self._games = games
        self._lists = lists
        self._courtesy = courtesy
        self._notify = notify
        self._puzzles = puzzles
        self._records = records
        self._config = config
        self._moderation = moderation
        self._tournaments = tournaments
        super().__init__()

    tournament = app_commands.Group(name=name("tournament"), description=L("cmd.tournament"))

    @tournament.command(name=name("create"), description=L("cmd.tournament.create"))
    @server_only
    @app_commands.rename(
        title=name("name"), format=name("format"), size=name("size"), best_of=name("best_of"),
        max_players=name("max_players"), signup_minutes=name("signup_minutes"),
        rounds=name("rounds"), show_up_minutes=name("show_up_minutes"), game=name("game"),
    )  # fmt: skip
    @app_commands.describe(
        title=L("cmd.tournament.title"),
        format=L("cmd.tournament.format"),
        game=L("cmd.tournament.game"),
        size=L("cmd.start.size"),
        best_of=L("cmd.tournament.best_of"),
        max_players=L("cmd.tournament.max_players"),
        signup_minutes=L("cmd.tournament.signup_minutes"),
        rounds=L("cmd.tournament.rounds"),
        show_up_minutes=L("cmd.tournament.show_up_minutes"),
    )
    @app_commands.choices(  # type: ignore[misc]
        format=FORMAT_CHOICES, game=GAME_CHOICES, size=SIZE_CHOICES, best_of=BEST_OF_CHOICES
    )
    async def tournament_create(
        self,
        interaction: discord.Interaction,
        title: app_commands.Range[str, 1, 80],
        format: app_commands.Choice[str],
        game: app_commands.Choice[str] | None = None,
        size: app_commands.Choice[int] | None = None,
        best_of: app_commands.Choice[int] | None = None,
        max_players: app_commands.Range[int, 2, 64] = 16,
        signup_minutes: app_commands.Range[int, 1, 10080] | None = None,
        rounds: app_commands.Range[int, 1, 10] | None = None,
        show_up_minutes: app_commands.Range[float, 0.02, 1440.0] = 10.0,
    ) -> None:
        await self._tournaments.on_create(
            interaction, name=title, format=format.value,  # type: ignore[arg-type]
            size=size.value if size else 3, best_of=best_of.value if best_of else 1,
            max_players=max_players, signup_minutes=signup_minutes, rounds=rounds or 0,
            show_up_minutes=show_up_minutes, variant=chosen_variant(game),
        )  # fmt: skip

    @tournament.command(name=name("start"), description=L("cmd.tournament.start"))
    @server_only
    async def tournament_start(self, interaction: discord.Interaction) -> None:
        await self._tournaments.on_start(interaction)

    @tournament.command(name=name("status"), description=L("cmd.tournament.status"))
    @server_only
    async def tournament_status(self, interaction: discord.Interaction) -> None:
        await self._tournaments.on_status(interaction)

    @tournament.command(name=name("remove"), description=L("cmd.tournament.remove"))
    @server_only
    @app_commands.rename(member=name("member"))
    @app_commands.describe(member=L("cmd.tournament.remove.member"))
    async def tournament_remove(
        self, interaction: discord.Interaction, member: discord.User
    ) -> None:
        await self._tournaments.on_remove(interaction, member)

    @tournament.command(name=name("correct"), description=L("cmd.tournament.correct"))
    @server_only
    @app_commands.rename(match=name("match"), winner=name("winner"), draw=name("draw"))
    @app_commands.describe(
        match=L("cmd.tournament.correct.match"),
        winner=L("cmd.tournament.correct.winner"),
        draw=L("cmd.tournament.correct.draw"),
    )
    async def tournament_correct(
        self, interaction: discord.Interaction, match: app_commands.Range[int, 1, 10000],
        winner: discord.User | None = None, draw: bool = False,
    ) -> None:  # fmt: skip
        await self._tournaments.on_correct(interaction, match, winner, draw)

    @tournament.command(name=name("cancel"), description=L("cmd.tournament.cancel"))
    @server_only
    async def tournament_cancel(self, interaction: discord.Interaction) -> None:
        await self._tournaments.on_cancel(interaction)

    @app_commands.command(name=name("start"), description=L("cmd.start"))
    @app_commands.rename(
        opponent=name("opponent"), difficulty=name("difficulty"), first=name("first"),
        size=name("size"), open_challenge=name("open"), game=name("game"), pace=name("pace"),
    )  # fmt: skip
    @app_commands.describe(
        opponent=L("cmd.start.opponent"),
        difficulty=L("cmd.start.difficulty", default="medium"),
        first=L("cmd.start.first"),
        size=L("cmd.start.size"),
        open_challenge=L("cmd.start.open"),
        game=L("cmd.start.variant"),
        pace=L("cmd.start.pace"),
    )
    # str and int choices in one call: discord.py's stubs cannot type that (one ChoiceT)
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES, first=FIRST_CHOICES, size=SIZE_CHOICES,
                          game=GAME_CHOICES, pace=PACE_CHOICES)  # type: ignore[misc]  # fmt: skip
    async def start(
        self,
        interaction: discord.Interaction,
        opponent: discord.User | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        first: app_commands.Choice[str] | None = None,
        size: app_commands.Choice[int] | None = None,
        open_challenge: bool = False,
        game: app_commands.Choice[str] | None = None,
        pace: int | None = None,  # the value as sent: one no choice names is refused
    ) -> None:
        await self._games.on_start(
            interaction,
            opponent,
            difficulty.value if difficulty else None,
            first.value if first else "random",  # type: ignore[arg-type]
            size.value if size else None,
            open_challenge=open_challenge,
            variant=chosen_variant(game),
            days_per_move=pace or None,
        )

    @app_commands.command(name=name("puzzle"), description=L("cmd.puzzle"))
    @app_commands.rename(mode=name("mode"), board=name("board"))
    @app_commands.describe(mode=L("cmd.puzzle.mode"), board=L("cmd.puzzle.board"))
    @app_commands.choices(mode=PUZZLE_MODES, board=PUZZLE_BOARDS)
    async def puzzle(
        self, interaction: discord.Interaction, mode: app_commands.Choice[str] | None = None,
        board: app_commands.Choice[str] | None = None,
    ) -> None:  # fmt: skip
        # a board chosen without a mode means training, the one mode that takes a board
        chosen, kind = mode.value if mode else "training" if board else "daily", board
        await self._puzzles.on_puzzle(interaction, chosen, kind and kind.value)  # type: ignore[arg-type]

    @app_commands.command(name=name("games"), description=L("cmd.games"))
    async def games(self, interaction: discord.Interaction) -> None:
        await self._lists.on_games(interaction)

    @app_commands.command(name=name("resign"), description=L("cmd.resign"))
    async def resign(self, interaction: discord.Interaction) -> None:
        await self._games.on_resign_command(interaction)

    @app_commands.command(name=name("board"), description=L("cmd.board"))
    @server_only
    async def board(self, interaction: discord.Interaction) -> None:
        await self._moderation.on_board(interaction)

    @app_commands.command(name=name("stop"), description=L("cmd.stop"))
    @server_only
    @app_commands.rename(member=name("member"))
    @app_commands.describe(member=L("cmd.stop.member"))
    async def stop(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        await self._moderation.on_stop(interaction, member)

    @app_commands.command(name=name("stats"), description=L("cmd.stats"))
    @app_commands.rename(member=name("member"), game=name("game"))
    @app_commands.describe(member=L("cmd.stats.member"), game=L("cmd.records.game"))
    @app_commands.choices(game=GAME_CHOICES)
    async def stats(
        self, interaction: discord.Interaction, member: discord.User | None = None,
        game: app_commands.Choice[str] | None = None,
    ) -> None:  # fmt: skip
        await self._records.on_stats(interaction, member, chosen_variant(game))

    @app_commands.command(name=name("leaderboard"), description=L("cmd.leaderboard"))
    @server_only
    @app_commands.rename(game=name("game"))
    @app_commands.describe(game=L("cmd.leaderboard.game"))
    @app_commands.choices(game=LEADERBOARD_CHOICES)
    async def leaderboard(
        self, interaction: discord.Interaction, game: app_commands.Choice[str] | None = None
    ) -> None:
        if game is not None and game.value == "puzzles":
            await self._puzzles.on_leaderboard(interaction)
        else:
            await self._records.on_leaderboard(interaction, chosen_variant(game))

    @app_commands.command(name=name("history"), description=L("cmd.history"))
    @app_commands.rename(member=name("member"))
    @app_commands.describe(member=L("cmd.history.member"))
    async def history(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        await self._records.on_history(interaction, member)

    @app_commands.command(name=name("review"), description=L("cmd.review"))
    async def review(self, interaction: discord.Interaction) -> None:
        await self._records.on_review(interaction)

    @app_commands.command(name=name("forget-me"), description=L("cmd.forget"))
    async def forget_me(self, interaction: discord.Interaction) -> None:
        await self._records.on_forget(interaction)

    @app_commands.command(name=name("block"), description=L("cmd.block"))
    @app_commands.rename(member=name("member"))
    @app_commands.describe(member=L("cmd.block.member"))
    async def block(self, interaction: discord.Interaction, member: discord.User) -> None:
        await self._courtesy.on_block(interaction, member)

    @app_commands.command(name=name("unblock"), description=L("cmd.unblock"))
    @app_commands.rename(member=name("member"))
    @app_commands.describe(member=L("cmd.block.member"))
    async def unblock(self, interaction: discord.Interaction, member: discord.User) -> None:
        await self._courtesy.on_unblock(interaction, member)

    @app_commands.command(name=name("config"), description=L("cmd.config"))
    @server_only
    @app_commands.rename(
        challenge_timeout=name("challenge_timeout"), turn_timeout=name("turn_timeout"),
        difficulty=name("difficulty"), size=name("size"), allow_channel=name("allow_channel"),
        reset_channels=name("reset_channels"), role=name("role"), reset_role=name("reset_role"),
        games_per_channel=name("games_per_channel"),
        one_game_per_member=name("one_game_per_member"), cooldown=name("cooldown"),
        colour=name("colour"), emoji=name("emoji"), language=name("language"),
        mark_x=name("mark_x"), mark_o=name("mark_o"), mark_empty=name("mark_empty"),
        reset_marks=name("reset_marks"), turn_ping=name("turn_ping"),
        hints=name("hints"), puzzles=name("puzzles"),
        correspondence_games=name("correspondence_games"),
    )  # fmt: skip
    @app_commands.describe(
        challenge_timeout=L("cmd.config.challenge_timeout"),
        turn_timeout=L("cmd.config.turn_timeout"),
        difficulty=L("cmd.config.difficulty"),
        size=L("cmd.config.size"),
        allow_channel=L("cmd.config.allow_channel"),
        reset_channels=L("cmd.config.reset_channels"),
        role=L("cmd.config.role"),
        reset_role=L("cmd.config.reset_role"),
        games_per_channel=L("cmd.config.games_per_channel"),
        one_game_per_member=L("cmd.config.one_game_per_member"),
        cooldown=L("cmd.config.cooldown"),
        colour=L("cmd.config.colour"),
        emoji=L("cmd.config.emoji"),
        turn_ping=L("cmd.config.turn_ping"),
        language=L("cmd.config.language"),
        mark_x=L("cmd.config.mark_x"),
        mark_o=L("cmd.config.mark_o"),
        mark_empty=L("cmd.config.mark_empty"),
        reset_marks=L("cmd.config.reset_marks"),
        hints=L("cmd.config.hints"),
        puzzles=L("cmd.config.puzzles"),
        correspondence_games=L("cmd.config.correspondence_games"),
    )
    @app_commands.choices(  # type: ignore[misc]
        difficulty=DIFFICULTY_CHOICES, size=SIZE_CHOICES, emoji=EMOJI_CHOICES,
        language=LANGUAGE_CHOICES,
    )  # fmt: skip
    async def config(
        self,
        interaction: discord.Interaction,
        challenge_timeout: app_commands.Range[int, 10, 3600] | None = None,
        turn_timeout: app_commands.Range[int, 30, 86400] | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        size: app_commands.Choice[int] | None = None,
        allow_channel: discord.TextChannel | None = None,
        reset_channels: bool | None = None,
        role: discord.Role | None = None,
        reset_role: bool | None = None,
        games_per_channel: app_commands.Range[int, 1, 10] | None = None,
        one_game_per_member: bool | None = None,
        cooldown: app_commands.Range[int, 0, 3600] | None = None,
        colour: app_commands.Range[str, 1, 9] | None = None,
        emoji: app_commands.Choice[str] | None = None,
        language: app_commands.Choice[str] | None = None,
        mark_x: app_commands.Range[str, 1, 64] | None = None,
        mark_o: app_commands.Range[str, 1, 64] | None = None,
        mark_empty: app_commands.Range[str, 1, 64] | None = None,
        reset_marks: bool | None = None,
        turn_ping: bool | None = None,
        hints: bool | None = None,
        puzzles: bool | None = None,
        correspondence_games: app_commands.Range[int, 1, 1000] | None = None,
    ) -> None:
        await self._config.on_config(
            interaction,
            challenge_timeout=challenge_timeout, turn_timeout=turn_timeout,
            difficulty=difficulty.value if difficulty else None,
            size=size.value if size else None, allow_channel=allow_channel,
            reset_channels=reset_channels, role=role, reset_role=reset_role,
            games_per_channel=games_per_channel, one_game_per_member=one_game_per_member,
            cooldown=cooldown, colour=colour, emoji=emoji.value if emoji else None,
            language=language.value if language else None, mark_x=mark_x, mark_o=mark_o,
            mark_empty=mark_empty, reset_marks=reset_marks, turn_ping=turn_ping,
            hints=hints, puzzles=puzzles, correspondence_games=correspondence_games,
        )  # fmt: skip

    @app_commands.command(name=name("notify"), description=L("cmd.notify"))
    @app_commands.rename(mode=name("mode"), hour=name("hour"), utc_offset=name("utc_offset"),
                         warnings=name("warnings"))  # fmt: skip
    @app_commands.describe(mode=L("cmd.notify.mode"), hour=L("cmd.notify.hour"),
                           utc_offset=L("cmd.notify.utc_offset"),
                           warnings=L("cmd.notify.warnings"))  # fmt: skip
    @app_commands.choices(mode=NOTIFY_CHOICES)
    async def notify(
        self, interaction: discord.Interaction, mode: app_commands.Choice[str],
        hour: app_commands.Range[int, 0, 23] | None = None,
        utc_offset: app_commands.Range[float, -12.0, 14.0] | None = None,
        warnings: bool | None = None,
    ) -> None:  # fmt: skip
        await self._notify.on_notify(interaction, mode.value, hour, utc_offset, warnings)

    @app_commands.command(name=name("help"), description=L("cmd.help"))
    async def help(self, interaction: discord.Interaction) -> None:
        await self._games.on_help(interaction)
