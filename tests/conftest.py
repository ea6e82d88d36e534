pytest_plugins = ["discord_emulator.fixtures", "core_harness", "pg_server"]
