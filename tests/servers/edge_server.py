"""A stdio MCP server that misbehaves at the edges of a session, for the tests of how the
harness ends one (Python 3, standard library only).

It answers `initialize`, `tools/list` (one tool, `lookup_issue`), `tools/call` ("Issue 42:
example") and `ping`; other requests get -32601, notifications nothing. Options:

  --banner TEXT   print TEXT on stdout before anything else (as some servers print a banner)
  --twice         write every response twice (but the one to initialize)
  --ignore-eof    keep running after stdin closed (until a signal ends it)
  --ignore-term   ignore SIGTERM too (only SIGKILL ends it)
  --pid-file F    write the process id to F first
"""

import argparse
import json
import os
import signal
import sys
import time


def answer(message):
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": message["params"].get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "edge", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": [{"name": "lookup_issue", "inputSchema": {"type": "object"}}]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "Issue 42: example"}]}
    if method == "ping":
        return {}
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--banner")
    parser.add_argument("--twice", action="store_true")
    parser.add_argument("--ignore-eof", action="store_true")
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--pid-file")
    args = parser.parse_args()
    if args.pid_file:
        with open(args.pid_file, "w") as f:
            f.write(str(os.getpid()))
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    out = sys.stdout
    if args.banner is not None:
        out.write(args.banner + "\n")
        out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        result = answer(message)
        if result is None:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "error": {"code": -32601, "message": "Method not found"}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        text = json.dumps(reply) + "\n"
        twice = args.twice and message["method"] != "initialize"
        out.write(text * (2 if twice else 1))
        out.flush()
    if args.ignore_eof or args.ignore_term:
        while True:
            time.sleep(600)


if __name__ == "__main__":
    main()
