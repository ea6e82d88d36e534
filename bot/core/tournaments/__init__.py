"""Tournaments, pure: seeding, pairings for single elimination, round robin and Swiss,
when a match is decided, and standings with their tie-breaks. No I/O: the service that
runs a tournament stores what these functions decide."""
