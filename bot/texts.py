"""Every user-facing string, in one catalog: wording and (later) translation live here."""

from __future__ import annotations

EN: dict[str, str] = {
    # commands
    "cmd.group": "Play tic-tac-toe",
    "cmd.start": "Start a game against the bot, or challenge a member",
    "cmd.start.opponent": "A member to challenge (leave empty to play the bot)",
    "cmd.start.difficulty": "The bot's strength (default: {default})",
    "cmd.start.first": "Who moves first (default: random)",
    "cmd.resign": "Resign your game in this channel",
    "cmd.help": "How to play, and the bot's difficulties",
    "cmd.start.size": "The board (default: 3×3)",
    "choice.size.3": "3×3, three in a row",
    "choice.size.4": "4×4, four in a row",
    "choice.size.5": "5×5, four in a row",
    "choice.first.random": "Random",
    "choice.first.me": "Me",
    "choice.first.opponent": "My opponent",
    # help
    "help": (
        "**Tic-tac-toe** — three in a row wins.\n"
        "`/ttt start` plays me; the default difficulty is **{default}**.\n"
        "`/ttt start opponent:@member` challenges a member: they get Accept and Decline "
        "buttons and {challenge} seconds to answer.\n"
        "`/ttt start difficulty:… first:… size:…` picks my strength, who moves first "
        "(random unless you choose) and the board: 3×3, 4×4 (four in a row) or 5×5 "
        "(four in a row; its 25 squares fill every button row, so resign there with "
        "`/ttt resign`).\n"
        "`/ttt resign` (or the Resign button) ends your game as a loss.\n"
        "`/ttt stats`, `/ttt history` and `/ttt leaderboard` show records; `/ttt review` "
        "(or the Review button) goes through your last game move by move; "
        "`/ttt forget-me` deletes your data.\n"
        "Click a square to move. If a player to move waits more than {turn} seconds, "
        "they lose the game.\n\n"
        "**Difficulties**\n"
        "• easy — looks one move ahead\n"
        "• medium — looks three moves ahead\n"
        "• hard — perfect play: it never loses\n"
        "• unbeatable — perfect play that also sets the most traps"
    ),
    # starting
    "start.self": "You can't challenge yourself. Leave the opponent empty to play me.",
    "start.other_bot": "{name} is a bot and can't play. Challenge a member, or play me.",
    "start.busy_game": "A game is already running in this channel: {link}. "
    "Finish it, or play in another channel.",
    "start.busy_challenge": "A challenge is already waiting for an answer in this channel: {link}.",
    "start.not_in_guild": "Games are played in server channels.",
    # challenges
    "challenge.content": "{opponent}, {challenger} challenges you to tic-tac-toe! "
    "Answer {deadline}.",
    "challenge.not_for_you": "This challenge is for {opponent}. Start your own with `/ttt start`.",
    "challenge.declined": "{opponent} declined {challenger}'s challenge.",
    "challenge.expired": "{challenger}'s challenge to {opponent} expired without an answer.",
    "challenge.closed": "This challenge is no longer open.",
    "challenge.rematch": "{opponent}, {challenger} wants a rematch, sides swapped! "
    "Answer {deadline}.",
    "button.accept": "Accept",
    "button.decline": "Decline",
    "button.resign": "Resign",
    "button.rematch": "Rematch",
    # the game message
    "game.vs": "❌ {x}  vs  ⭕ {o}",
    "game.turn": "{player} to move ({mark}), {deadline}.",
    "game.bot_turn": "{player} is thinking…",
    "game.won": "**{player} wins** with three in a row! ({mark})",
    "game.won_k": "**{player} wins** with {k} in a row! ({mark})",
    "game.draw": "**Draw.** Nobody wins.",
    "game.resigned": "{loser} resigned. **{winner} wins.**",
    "game.timeout": "{loser} ran out of time. **{winner} wins.**",
    "bot.name": "the bot ({difficulty})",
    # clicks that change nothing
    "move.not_player": "You're not playing in this game. Start your own with `/ttt start`.",
    "move.not_your_turn": "It's not your turn: waiting for {player}.",
    "move.stale": "That board is out of date: the game has moved on. Use the latest board.",
    "move.taken": "That square is already taken.",
    "move.over": "This game is over.",
    "game.unknown": "I can't find this game any more.",
    "resign.none": "You have no running game in this channel.",
    "resign.done": "You resigned the game.",
    "rematch.not_player": "Only the players of this game can ask for a rematch.",
    "rematch.running": "This game is still running.",
    # records
    "cmd.stats": "A member's wins, losses and draws, and their streaks",
    "cmd.stats.member": "Whose stats (default: yours)",
    "cmd.leaderboard": "This server's best players",
    "cmd.history": "A member's last games",
    "cmd.history.member": "Whose games (default: yours)",
    "cmd.review": "Review your last game move by move",
    "cmd.forget": "Delete your stored games and ratings",
    "button.review": "Review",
    "button.forget_yes": "Delete my data",
    "button.forget_no": "Keep it",
    "stats.title": "Tic-tac-toe record of {name}",
    "stats.none": "{name} has no finished games in this server yet.",
    "stats.members": "Against members",
    "stats.bot": "Against the bot ({difficulty})",
    "stats.record": "{wins} wins · {losses} losses · {draws} draws",
    "stats.streak": "Win streak",
    "stats.streak_value": "current {current} · best {best}",
    "stats.me": "That's me: I don't keep a record of my own games.",
    "board.title": "Leaderboard",
    "board.rated": "Rated games between members (Elo, everyone starts at {initial})",
    "board.row": "{rank}. {name} — **{rating}** ({wins}-{losses}-{draws})",
    "board.empty": "No rated games yet: challenge a member with `/ttt start opponent:`.",
    "board.you": "Your rank",
    "board.you_value": "#{rank} — {rating} ({wins}-{losses}-{draws})",
    "board.you_unrated": "Not rated yet: play a member to get a rating.",
    "board.vs_bot": "Best against {difficulty} (W-L-D)",
    "board.vs_bot_row": "{rank}. {name} — {wins}-{losses}-{draws}",
    "board.vs_bot_empty": "Nobody has played {difficulty} yet.",
    "history.title": "Last games of {name}",
    "history.none": "{name} has no finished games in this server yet.",
    "history.row": "{result} vs {opponent} — {how}, {when} · [game]({link})",
    "history.win": "**Win**",
    "history.loss": "**Loss**",
    "history.draw": "**Draw**",
    "how.line": "a line",
    "how.draw": "a full board",
    "how.resign": "resignation",
    "how.timeout": "time out",
    "review.title": "Review: {x} (❌) vs {o} (⭕)",
    "review.none": "You have no finished game in this server to review.",
    "review.too_big": "Exact reviews are available for 3×3 games.",
    "review.running": "This game is still running: review it when it's over.",
    "review.move": "{number}. {mark} {square} — {verdict}",
    "review.best": ". Best: {squares}.",
    "review.clean": "No mistakes: every move kept the best result on offer.",
    "review.summary": "{count} move(s) changed the result under perfect play.",
    "verdict.keeps_win": "keeps the win",
    "verdict.keeps_draw": "keeps the draw",
    "verdict.keeps_loss": "best defence (lost anyway)",
    "verdict.win_to_draw": "**mistake**: lets the win slip to a draw",
    "verdict.win_to_loss": "**blunder**: turns a win into a loss",
    "verdict.draw_to_loss": "**blunder**: turns a draw into a loss",
    "forget.ask": "Delete all your finished games, ratings and records in every server? "
    "This cannot be undone.",
    "forget.running": "Finish or resign your running game first, then try again.",
    "forget.done": "Done: {count} game(s) and your ratings are deleted.",
    "forget.cancelled": "Nothing was deleted.",
    "forget.not_yours": "This question was for someone else.",
    "error.generic": "Something went wrong on my side, and nothing was changed. Try again.",
}


def text(key: str, **params: object) -> str:
    """The English text for ``key`` with ``params`` filled in.

    Raises:
        KeyError: an unknown key (a bug: every key lives in the catalog).
    """
    return EN[key].format(**params)
