"""/ttt config: a server's admins choose its settings; without options it shows them."""

from __future__ import annotations

import discord

from bot.core.policies import PolicyBook
from bot.core.policy import MARK_SETTINGS, ServerPolicy, custom_emoji_id, parse_colour, parse_mark
from bot.core.refusals import Refusal
from bot.discord_ui.responder import Responder
from bot.i18n import text


class ConfigController:
    def __init__(self, policies: PolicyBook, responder: Responder, client: discord.Client) -> None:
        self.policies = policies
        self.responder = responder
        self.client = client
        """Where a server's custom emoji are looked up, to check the bot can use them."""

    async def on_config(self, interaction: discord.Interaction, **options: object) -> None:
        async with self.responder.answering(interaction):
            if interaction.guild_id is None:  # the command is server_only: never in a DM
                raise Refusal("dm.server_only", group_key="name.ttt", command_key="name.config")
            if not interaction.permissions.manage_guild:
                raise Refusal("config.not_admin")
            current = await self.policies.policy(interaction.guild_id)
            changes = self._changes(current, options)
            for name in MARK_SETTINGS:
                mark = changes.get(name)
                if isinstance(mark, str):
                    await self._check_usable(interaction.guild_id, mark)
            if changes:
                current = await self.policies.configure(interaction.guild_id, changes)
            embed = self.embed(current, interaction.locale)
            saved = text("config.saved", interaction.locale) if changes else None
            await interaction.response.send_message(saved, embed=embed, ephemeral=True)

    @staticmethod
    def _changes(current: ServerPolicy, options: dict[str, object]) -> dict[str, object]:
        """Map the command's options onto setting names (None: back to the default).

        Raises:
            Refusal: a colour that is not one.
        """
        simple = {
            "challenge_timeout": "challenge_timeout", "turn_timeout": "turn_timeout",
            "difficulty": "default_difficulty", "size": "default_size",
            "games_per_channel": "games_per_channel",
            "one_game_per_member": "one_game_per_member", "cooldown": "start_cooldown",
            "emoji": "emoji_set", "turn_ping": "turn_ping", "hints": "hints", "puzzles": "puzzles",
            "correspondence_games": "correspondence_games",
        }  # fmt: skip
        changes: dict[str, object] = {
            simple[k]: v for k, v in options.items() if k in simple and v is not None
        }
        if options.get("language") is not None:
            language = options["language"]
            changes["language"] = None if language == "server" else language
        if options.get("reset_marks"):
            changes.update(dict.fromkeys(MARK_SETTINGS))
        for name in MARK_SETTINGS:
            raw = options.get(name)
            if raw is not None:
                mark = parse_mark(str(raw))
                if mark is None:
                    raise Refusal("config.bad_mark", value=str(raw)[:40])
                changes[name] = mark
        if options.get("colour") is not None:
            colour = parse_colour(str(options["colour"]))
            if colour is None:
                raise Refusal("config.bad_colour", value=options["colour"])
            changes["embed_colour"] = colour
        if options.get("reset_channels"):
            changes["allowed_channels"] = None
        if options.get("allow_channel") is not None:
            channel_id = options["allow_channel"].id  # type: ignore[attr-defined]
            kept = () if options.get("reset_channels") else current.allowed_channels
            changes["allowed_channels"] = [*dict.fromkeys([*kept, channel_id])]
        if options.get("reset_role"):
            changes["start_role"] = None
        if options.get("role") is not None:
            changes["start_role"] = options["role"].id  # type: ignore[attr-defined]
        return changes

    async def _check_usable(self, guild_id: int, mark: str) -> None:
        """Raises: Refusal: a custom emoji that is not this server's, or that Discord has
        made unavailable (a boost lost), so the bot could not show it."""
        emoji_id = custom_emoji_id(mark)
        if emoji_id is None:
            return
        cached = self.client.get_emoji(emoji_id)
        if cached is not None and cached.guild_id == guild_id:
            usable = cached.available
        else:  # not in this process's cache (another shard's view, or just added)
            try:
                found = await self.client.http.get_custom_emoji(guild_id, emoji_id)
            except discord.NotFound:
                found = None
            usable = found is not None and found.get("available", True)
        if not usable:
            raise Refusal("config.unusable_emoji", emoji=mark)

    @staticmethod
    def embed(rules: ServerPolicy, locale: object) -> discord.Embed:
        def seconds(value: float) -> str:
            return text("config.seconds", locale, seconds=int(value))

        yes_no = {True: text("config.yes", locale), False: text("config.no", locale)}
        channels = ", ".join(f"<#{c}>" for c in rules.allowed_channels)
        rows = {
            "config.challenge_timeout": seconds(rules.challenge_timeout),
            "config.turn_timeout": seconds(rules.turn_timeout),
            "config.difficulty": text(f"choice.difficulty.{rules.default_difficulty}", locale),
            "config.size": text(f"choice.size.{rules.default_size}", locale),
            "config.channels": channels or text("config.all_channels", locale),
            "config.role": f"<@&{rules.start_role}>" if rules.start_role
            else text("config.anyone", locale),
            "config.games_per_channel": str(rules.games_per_channel),
            "config.one_game_per_member": yes_no[rules.one_game_per_member],
            "config.cooldown": seconds(rules.start_cooldown),
            "config.colour": f"#{rules.embed_colour:06X}",
            "config.emoji": text(f"choice.emoji.{rules.emoji_set}", locale),
            "config.turn_ping": yes_no[rules.turn_ping],
            "config.marks": " ".join((rules.marks.x, rules.marks.o, rules.marks.empty)),
            "config.language": text(f"choice.language.{rules.language or 'server'}", locale),
            "config.hints": yes_no[rules.hints],
            "config.puzzles": yes_no[rules.puzzles],
            "config.correspondence_games": str(rules.correspondence_games)
            if rules.correspondence_games else text("config.bot_limit", locale),
        }  # fmt: skip
        embed = discord.Embed(title=text("config.title", locale), colour=rules.embed_colour)
        for key, value in rows.items():
            embed.add_field(name=text(key, locale), value=value, inline=True)
        return embed
