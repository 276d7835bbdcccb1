"""Helpers the tests share, one module per subject: the running bot and its users (harness),
databases, boards, groups, processes, the Mini App, the playground, the browser, pictures and
the data files. Fixtures stay in conftest.py."""
