#!/usr/bin/env bash
# record-real-sessions: real clients touring real servers, recorded through `mcp-replay record`.
#
#   scripts/record-real-sessions.sh [--out DIR] [NAME...]
#
# Builds the CLI (`cargo build -p mcp-replay-cli`, into CARGO_TARGET_DIR or <repo>/target),
# then, for each session, starts the client with `mcp-replay record -o DIR/NAME.jsonl --
# SERVER...` as its server command, so the proxy sits between a real client and a real
# server and writes the normalized fixture when the session ends:
#
#   everything_python_client   peers/python/tour_client.py --tour everything  x  server-everything
#   python_server_python_client peers/python/tour_client.py --tour python     x  peers/python/tour_server.py
#   everything_ts_client       peers/node/tour_client.mjs --tour everything   x  server-everything
#
# DIR defaults to mcp-replay/tests/fixtures/real (the committed fixtures that
# mcp-replay/tests/real_sessions.rs replays); NAME... picks sessions (default: all three).
# Use --out to record elsewhere, e.g. to compare several recordings (peers/README.md says
# what varies between them).
#
# Needs the peers: `bash peers/install.sh`. Each client's events (JSON lines) go to
# DIR/NAME.client.log with --out, to a temporary folder otherwise. Exits non-zero if a
# client or the recorder fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

OUT="mcp-replay/tests/fixtures/real"
if [ "${1:-}" = "--out" ]; then
  OUT="${2:?--out needs a folder}"
  shift 2
fi
NAMES=("$@")
[ ${#NAMES[@]} -gt 0 ] || NAMES=(everything_python_client python_server_python_client everything_ts_client)

PY="peers/python/.venv/bin/python"
EVERYTHING="peers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
for need in "$PY" "$EVERYTHING" peers/node/node_modules/@modelcontextprotocol/sdk/package.json; do
  [ -e "$need" ] || { echo "record-real-sessions: $need is missing: run 'bash peers/install.sh'" >&2; exit 1; }
done

echo "==> cargo build -p mcp-replay-cli" >&2
cargo build --quiet -p mcp-replay-cli
MCP_REPLAY="${CARGO_TARGET_DIR:-$ROOT/target}/debug/mcp-replay"

mkdir -p "$OUT"
LOGS="$OUT"
if [ "$OUT" = "mcp-replay/tests/fixtures/real" ]; then
  LOGS="$(mktemp -d)"
  trap 'rm -rf "$LOGS"' EXIT
fi

for name in "${NAMES[@]}"; do
  case "$name" in
    everything_python_client) client=("$PY" peers/python/tour_client.py --tour everything); server=(node "$EVERYTHING" stdio) ;;
    python_server_python_client) client=("$PY" peers/python/tour_client.py --tour python); server=("$PY" peers/python/tour_server.py) ;;
    everything_ts_client) client=(node peers/node/tour_client.mjs --tour everything); server=(node "$EVERYTHING" stdio) ;;
    *) echo "record-real-sessions: unknown session $name" >&2; exit 2 ;;
  esac
  echo "==> $name" >&2
  rm -f "$OUT/$name.jsonl"
  if ! "${client[@]}" -- "$MCP_REPLAY" record -o "$OUT/$name.jsonl" -- "${server[@]}" >"$LOGS/$name.client.log"; then
    echo "record-real-sessions: the client failed for $name; its last events:" >&2
    tail -n 5 "$LOGS/$name.client.log" >&2
    exit 1
  fi
  # The recorder writes when the session ends, which may be just after the client exits.
  for _ in $(seq 50); do [ -s "$OUT/$name.jsonl" ] && break; sleep 0.1; done
  [ -s "$OUT/$name.jsonl" ] || { echo "record-real-sessions: no fixture written for $name" >&2; exit 1; }
  echo "    $OUT/$name.jsonl: $(wc -l <"$OUT/$name.jsonl") lines" >&2
done
