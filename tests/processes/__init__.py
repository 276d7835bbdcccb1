"""Real `python -m bot` processes, as an operator runs them: polling, webhooks, several
processes on one database, crashes, refused settings."""
