"""bot/transport/: the pacer, the rate limiter and the per-chat update order."""
