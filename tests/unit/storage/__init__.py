"""bot/storage/: both backends, their schema and their migrations."""
