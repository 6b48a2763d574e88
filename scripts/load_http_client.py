#!/usr/bin/env python3
"""A Streamable HTTP client of this repository's own, for scripts/load-http.sh.

Walks the client side of a fixture as SESSIONS sessions, AT_ONCE at a time, against
`mcp-replay serve --http` of the same fixture (Python's standard library only: one thread
per session, one per open request stream). Each session sends its own request ids (a range
of its own), its own progress tokens, answers the server's requests with the ids they came
with, and checks that everything it is sent is its own: the `Mcp-Session-Id` of every
answer, the id of every response, the token of every progress notification. Prints one
JSON document: sessions whole and crossed, the request latencies (p50, p99, max) by
method, and the first problems seen.

    load_http_client.py URL FIXTURE [--sessions N] [--at-once C] [--first K]

`--first K` numbers the sessions from K (two clients at once never share an id range).
Exit 0 when every session was whole, 1 otherwise.
"""

import argparse
import copy
import http.client
import json
import queue
import sys
import threading
import time
import urllib.parse

CLIENT_INFO = {"name": "mcp-replay-load-client", "version": "1.0.0"}
TIMEOUT = 30.0


def read_fixture(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            value = json.loads(line)
            if "mcp_replay" in value:
                continue
            entries.append((value["direction"], value["message"]))
    return entries


def recorded_version(entries):
    for direction, message in entries:
        result = message.get("result")
        if direction == "server->client" and isinstance(result, dict):
            if "protocolVersion" in result:
                return result["protocolVersion"]
    return "2025-06-18"


def substitute(value, table):
    """`value` with each string that is a key of `table` replaced by its value."""
    if isinstance(value, str):
        return copy.deepcopy(table[value]) if value in table else value
    if isinstance(value, list):
        return [substitute(v, table) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, table) for k, v in value.items()}
    return value


def sse_messages(response):
    """The JSON messages of an SSE body, as they come."""
    data = []
    while True:
        raw = response.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield json.loads("\n".join(data))
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])


class Session:
    def __init__(self, url, number, entries, version):
        parsed = urllib.parse.urlsplit(url)
        self.host, self.port, self.path = parsed.hostname, parsed.port, parsed.path
        self.number = number
        self.entries = entries
        self.version = version
        self.session_id = None
        self.next_id = number * 1000
        self.problems = []
        self.latencies = []  # (method, seconds)
        self.lock = threading.Lock()
        self.answered = {}  # live id -> response
        self.server_requests = queue.Queue()  # (method, live id), as they came
        self.arrived = threading.Condition(self.lock)
        self.threads = []

    def problem(self, text):
        with self.lock:
            self.problems.append(f"session {self.number}: {text}")

    def headers(self):
        h = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.session_id:
            h["Mcp-Session-Id"] = self.session_id
            h["MCP-Protocol-Version"] = self.version
        return h

    def take(self, message):
        """A message the server sent this session: is it this session's own?"""
        method = message.get("method")
        if method == "notifications/progress":
            token = str(message.get("params", {}).get("progressToken", ""))
            if not token.startswith(f"load-{self.number}-"):
                self.problem(f"another session's progress: {token}")
        elif method is not None and "id" in message:
            self.server_requests.put((method, message["id"]))
        elif method is None:
            live = message.get("id")
            with self.arrived:
                if not isinstance(live, int) or not (
                    self.number * 1000 <= live < self.next_id
                ):
                    self.problems.append(
                        f"session {self.number}: a response with id {live}, not its own"
                    )
                elif live in self.answered:
                    self.problems.append(f"session {self.number}: a second answer to {live}")
                else:
                    self.answered[live] = message
                self.arrived.notify_all()

    def check_session_id(self, response, initialize):
        got = response.getheader("Mcp-Session-Id")
        if initialize:
            self.session_id = got
        elif got is not None and got != self.session_id:
            self.problem(f"answered under session {got}, not {self.session_id}")

    def post(self, message, method, initialize=False):
        started = time.perf_counter()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        try:
            conn.request("POST", self.path, json.dumps(message), self.headers())
            response = conn.getresponse()
            self.check_session_id(response, initialize)
            if response.status == 202:
                response.read()
                return
            if response.status != 200:
                self.problem(f"{method}: HTTP {response.status} {response.read()[:200]!r}")
                return
            kind = response.getheader("Content-Type", "")
            if kind.startswith("text/event-stream"):
                for m in sse_messages(response):
                    self.take(m)
                    if "method" not in m and m.get("id") == message.get("id"):
                        break
            else:
                self.take(json.loads(response.read()))
            with self.lock:
                self.latencies.append((method, time.perf_counter() - started))
        except Exception as e:  # noqa: BLE001: a client that reports, not one that stops
            self.problem(f"{method}: {type(e).__name__}: {e}")
        finally:
            conn.close()

    def wait_answer(self, live):
        deadline = time.monotonic() + TIMEOUT
        with self.arrived:
            while live not in self.answered:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.problems.append(f"session {self.number}: no answer to {live}")
                    return
                self.arrived.wait(left)

    def walk(self):
        unanswered = []  # live ids of the fixture's requests, oldest first
        server_ids = {}  # the fixture's server request id -> the live one
        table = {
            "<CLIENT_INFO>": CLIENT_INFO,
            "<PROTOCOL_VERSION>": self.version,
        }
        for direction, recorded in self.entries:
            if direction == "server->client":
                if "method" not in recorded:
                    # The response the fixture has here: the oldest request's.
                    if unanswered:
                        self.wait_answer(unanswered.pop(0))
                elif "id" in recorded:
                    try:
                        method, live = self.server_requests.get(timeout=TIMEOUT)
                    except queue.Empty:
                        self.problem(f"the server's {recorded['method']} never came")
                        return
                    if method != recorded["method"]:
                        self.problem(f"server request {method}, the fixture has {recorded['method']}")
                    server_ids[json.dumps(recorded["id"])] = live
                continue
            message = substitute(recorded, table)
            meta = message.get("params", {}).get("_meta", {})
            if "progressToken" in meta:
                meta["progressToken"] = f"load-{self.number}-{self.next_id}"
            method = message.get("method", "a response")
            if "method" in message and "id" in message:
                live = self.next_id
                self.next_id += 1
                message["id"] = live
                unanswered.append(live)
                if method == "initialize":
                    self.post(message, method, initialize=True)
                    if not self.session_id:
                        self.problem("initialize gave no Mcp-Session-Id")
                        return
                    continue
                t = threading.Thread(target=self.post, args=(message, method))
                t.start()
                self.threads.append(t)
            elif "method" not in message:
                key = json.dumps(recorded.get("id"))
                if key not in server_ids:
                    self.problem(f"an answer to a server request that never came ({key})")
                    return
                message["id"] = server_ids[key]
                self.post(message, "(answer to a server request)")
            else:
                self.post(message, method)
        for t in self.threads:
            t.join(TIMEOUT)
        for live in unanswered:
            self.wait_answer(live)
        started = time.perf_counter()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        try:
            conn.request("DELETE", self.path, headers=self.headers())
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                self.problem(f"DELETE: HTTP {response.status}")
            with self.lock:
                self.latencies.append(("DELETE", time.perf_counter() - started))
        except Exception as e:  # noqa: BLE001
            self.problem(f"DELETE: {type(e).__name__}: {e}")
        finally:
            conn.close()


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    k = min(len(sorted_values) - 1, int(round(p / 100.0 * (len(sorted_values) - 1))))
    return sorted_values[k]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("fixture")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--at-once", type=int, default=16)
    parser.add_argument("--first", type=int, default=1)
    args = parser.parse_args()
    entries = read_fixture(args.fixture)
    version = recorded_version(entries)
    numbers = queue.Queue()
    for n in range(args.first, args.first + args.sessions):
        numbers.put(n)
    done = []
    done_lock = threading.Lock()

    def worker():
        while True:
            try:
                n = numbers.get_nowait()
            except queue.Empty:
                return
            session = Session(args.url, n, entries, version)
            session.walk()
            with done_lock:
                done.append(session)

    began = time.perf_counter()
    workers = [threading.Thread(target=worker) for _ in range(args.at_once)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - began
    by_method = {}
    for s in done:
        for method, seconds in s.latencies:
            by_method.setdefault(method, []).append(seconds)
    every = sorted(x for values in by_method.values() for x in values)
    ms = lambda x: None if x is None else round(x * 1000, 2)  # noqa: E731
    crossed = [s for s in done if s.problems]
    report = {
        "sessions": len(done),
        "whole": len(done) - len(crossed),
        "with_problems": len(crossed),
        "seconds": round(elapsed, 2),
        "requests": len(every),
        "p50_ms": ms(percentile(every, 50)),
        "p99_ms": ms(percentile(every, 99)),
        "max_ms": ms(every[-1] if every else None),
        "by_method": {
            m: {
                "n": len(v),
                "p50_ms": ms(percentile(sorted(v), 50)),
                "p99_ms": ms(percentile(sorted(v), 99)),
            }
            for m, v in sorted(by_method.items())
        },
        "error_answers": sum(
            1 for s in done for m in s.answered.values() if "error" in m
        ),
        "problems": [p for s in crossed for p in s.problems][:20],
    }
    json.dump(report, sys.stdout, indent=1)
    print()
    sys.exit(0 if not crossed else 1)


if __name__ == "__main__":
    main()
