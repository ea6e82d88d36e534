"""A stand-in for the Discord client around an Activity: a page on https://discord.com (in
the test browser: its host mapped to a local server) that frames the Activity and answers
the Embedded App SDK's messages. ``fixtures.py`` opens an Activity in it from a test."""
