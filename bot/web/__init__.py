"""The Activity's web service: the live board inside Discord (its page, API and updates).

A view like the chat board: it renders what the core says and sends intents to the same
service methods; it never imports storage or Discord's client library.
"""
