"""bot/services/: the use cases, on real storage (a SQLite file, and PostgreSQL)."""
