pytest_plugins = ["discord_emulator.fixtures"]
