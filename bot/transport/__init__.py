"""Getting updates in and messages out at Telegram's pace: throttling, pacing, webhooks."""
