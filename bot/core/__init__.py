"""The game's rules and services: no Discord, no SQL, no driver. Storage comes in through
the repository interface (:mod:`bot.core.repository`), time through an injected clock."""
