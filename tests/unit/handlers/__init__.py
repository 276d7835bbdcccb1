"""bot/handlers/: what the update callbacks compute without a running Application."""
