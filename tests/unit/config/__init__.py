"""bot/config.py: the settings read from the environment, and how they are checked."""
