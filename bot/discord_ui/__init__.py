"""The Discord interface: slash commands, buttons, rendering, answering. It asks the core
to decide and shows what comes back; it never touches storage."""
