"""bot/web/: the web server's parts on their own, the Mini App's initData check among them."""
