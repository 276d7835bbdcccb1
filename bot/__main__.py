"""`bot2048` (or `python -m bot`): run the bot with long polling, configured from the environment.

`bot2048 --webhook` (or WEBHOOK_URL set) serves Telegram's webhook instead, on the bot's
web server (PORT), checking WEBHOOK_SECRET: the mode for several processes sharing one
PostgreSQL database. When polling, the web server runs only if PORT is set.

`bot2048 --playground [--port 8080]` runs it instead against a local Telegram stand-in with
a web page: no token, no network.

`bot2048 verify RECORD.json` checks a game's record as `/record` sends it: the seed against
the commitment published before the game, and the result against a replay by the engine.

`main` returns the exit code; the `bot2048` script that pip writes passes it to `sys.exit`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from telegram.error import InvalidToken, NetworkError

import engine
from bot import __version__
from bot.config import ConfigError, load_config, load_log_level, settings_help
from bot.lifecycle import run
from bot.logs import configure_logging
from bot.startup import TokenRejected
from bot.storage import StorageUnavailable
from bot.web.server import ListenError

PLAYGROUND_DATABASE = "playground.sqlite3"


def _parser(prog: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="2048 on Telegram. Without options: run the bot (TELEGRAM_BOT_TOKEN).",
        epilog=settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--playground",
        action="store_true",
        help="try the bot in your browser against a local Telegram stand-in (no token needed)",
    )
    parser.add_argument(
        "--webhook",
        action="store_true",
        help="receive updates by webhook (WEBHOOK_URL, WEBHOOK_SECRET, PORT) instead of polling",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="the playground's web port on 127.0.0.1 (default 8080; 0 picks a free one)",
    )
    return parser


def _playground(port: int, env: Mapping[str, str]) -> int:
    from bot.playground import PlaygroundError, run_playground

    try:
        log_level = load_log_level(env)
    except ConfigError as error:
        print(f"bot2048: {error}", file=sys.stderr)
        return 2
    database = Path(env.get("BOT_DATABASE", "").strip() or PLAYGROUND_DATABASE)
    configure_logging(log_level)
    try:
        asyncio.run(run_playground(port, database))
    except PlaygroundError as error:
        print(f"bot2048: {error}", file=sys.stderr)
        return 2
    except StorageUnavailable as error:  # another playground on the file, or a damaged file
        print(f"bot2048: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # only where signal handlers cannot be installed
        pass
    return 0


def _verify(argv: Sequence[str], prog: str | None) -> int:
    """`verify RECORD.json`: 0 when the record holds, 1 when it does not (or is none)."""
    parser = argparse.ArgumentParser(
        prog=f"{prog or os.path.basename(sys.argv[0])} verify",
        description="Check a game's record: its seed against its commitment, its result "
        "against a replay.",
    )
    parser.add_argument("record", type=Path, help="the JSON file /record sent")
    path = parser.parse_args(argv).record
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise engine.EngineError("the file holds no record")
        verdict = engine.verify(data)
    except (OSError, ValueError, engine.EngineError) as error:
        print(f"{path}: not a record that can be checked: {error}", file=sys.stderr)
        return 1
    print(f"{path}: {data['size']}×{data['size']}, seed {data['seed']}")
    if verdict.committed is None:
        print("commitment: none in this record")
    else:
        print(f"commitment: {'matches' if verdict.committed else 'DOES NOT MATCH'}")
    print(
        "replay: "
        + (
            f"gives the stated score ({data['score']}), moves ({data['moves']}), highest "
            f"tile ({data['highest']}) and tiles"
            if verdict.replayed
            else "DOES NOT MATCH"
        )
    )
    for problem in verdict.problems:
        print(f"  {problem}")
    print("verified" if verdict.holds else "NOT VERIFIED")
    return 0 if verdict.holds else 1


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run as the command line says; `prog` names the command in help and usage errors.

    The `bot2048` script leaves `prog` unset, so argparse names it after the script; run as a
    module, the file name would read `__main__.py`, hence the explicit name below.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["verify"]:
        return _verify(arguments[1:], prog)
    parser = _parser(prog)
    args = parser.parse_args(arguments)
    if args.port is not None and not args.playground:
        parser.error("--port only applies to --playground")
    if args.webhook and args.playground:
        parser.error("--webhook and --playground exclude each other")
    if args.playground:
        port = 8080 if args.port is None else args.port
        if not 0 <= port <= 65535:
            parser.error("--port must be between 0 and 65535")
        return _playground(port, os.environ)
    try:
        config = load_config(os.environ, webhook=args.webhook)
    except ConfigError as error:
        print(f"bot2048: {error}", file=sys.stderr)
        return 2
    configure_logging(config.log_level, config.secrets)
    try:
        asyncio.run(run(config))
    except (TokenRejected, InvalidToken) as error:
        print(
            f"bot2048: Telegram refused TELEGRAM_BOT_TOKEN ({_reason(error)}): it was revoked or "
            "is mistyped (or TELEGRAM_BASE_URL is wrong); @BotFather shows the current token.",
            file=sys.stderr,
        )
        return 2
    except (StorageUnavailable, ListenError) as error:
        print(f"bot2048: {error}", file=sys.stderr)
        return 1
    except NetworkError as error:  # Telegram went away again during the start itself
        print(
            f"bot2048: lost the connection to Telegram while starting ({error}): start the bot "
            "again",
            file=sys.stderr,
        )
        return 1
    return 0


def _reason(error: Exception) -> str:
    """Telegram's words for a refused token, never the token that PTB's message quotes."""
    if isinstance(error, InvalidToken):
        return str(error.__cause__ or "rejected")
    return str(error)


if __name__ == "__main__":
    sys.exit(main(prog="python -m bot"))
