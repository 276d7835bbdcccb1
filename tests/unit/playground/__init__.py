"""bot/playground/: the playground's own logic, apart from the page and the bot it runs."""
