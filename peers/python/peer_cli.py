"""What the Python peer clients (client.py, jitter_client.py, tour_client.py) share: the
server command after `--`, and one way to run a client and report its failure."""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import Any, Callable


def server_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The server command given after `--` (a parser error when there is none)."""
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error(f"missing server command (usage: {parser.usage % {'prog': parser.prog}})")
    return command


def run_client(prog: str, command: list[str] | None, start: Callable[[], Any]) -> int:
    """Runs `start()` (an `anyio.run(...)` of the client), with exit status 0 on success and
    1 on any error, which goes to stderr. `command`: the server command it launches (checked
    first), or None when it connects to a URL."""
    if command is not None and shutil.which(command[0]) is None:
        print(f"{prog}: server command not found: {command[0]!r}", file=sys.stderr)
        return 1
    try:
        start()
    except Exception as exc:  # noqa: BLE001 - report anything as a failed run
        print(f"{prog}: error: {describe(exc)}", file=sys.stderr)
        return 1
    return 0


def describe(exc: BaseException) -> str:
    """Unwrap single-exception groups (anyio task groups) into a readable message."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"
