"""bot/presentation/: texts, boards, keyboards, pictures and catalogs, independent of Telegram."""
