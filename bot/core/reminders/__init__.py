""" "Your move" reminders by DM: opt-in, through a stored outbox (see :mod:`.models`)."""
