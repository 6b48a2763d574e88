#!/usr/bin/env bash
# record-client-matrix: each tour client's live tour of server-everything, recorded through
# `mcp-replay record`, with what the client observed.
#
#   scripts/record-client-matrix.sh [--out DIR] [--check N] [CLIENT...]
#
# CLIENT is python (peers/python/tour_client.py --tour everything), ts
# (peers/node/tour_client.mjs --tour everything) or rmcp (the tour-client binary, demo/src/bin/);
# default: all three. For each, the client runs with
#
#   mcp-replay record -o DIR/CLIENT.jsonl -- node .../server-everything/dist/index.js stdio
#
# as its server command; the fixture is the session the proxy saw and DIR/CLIENT.observed
# the client's stdout (its observations, one JSON line each). tests/client_matrix.rs
# serves each fixture back to its client with `mcp-replay serve` and expects the same
# observations.
#
# Then, to show the observations hold nothing timing-dependent, the client tours the live
# server N more times (--check N, default 3; 0 skips) without the proxy, and each run's
# stdout must equal DIR/CLIENT.observed; a difference is printed and the script fails.
#
# DIR defaults to tests/fixtures/matrix. Builds the CLI and tour-client first (into
# CARGO_TARGET_DIR or <repo>/target). Needs the peers: `bash peers/install.sh`. The client's
# stderr (with the server's and the recorder's) goes to this script's stderr.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

OUT="tests/fixtures/matrix"
CHECK=3
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="${2:?--out needs a folder}"; shift 2 ;;
    --check) CHECK="${2:?--check needs a number}"; shift 2 ;;
    --) shift; break ;;
    -*) echo "record-client-matrix: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
CLIENTS=("$@")
[ ${#CLIENTS[@]} -gt 0 ] || CLIENTS=(python ts rmcp)

PY="peers/python/.venv/bin/python"
EVERYTHING="peers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
for need in "$PY" "$EVERYTHING" peers/node/node_modules/@modelcontextprotocol/sdk/package.json; do
  [ -e "$need" ] || { echo "record-client-matrix: $need is missing: run 'bash peers/install.sh'" >&2; exit 1; }
done

echo "==> cargo build -p mcp-replay-cli; cargo build -p mcp-replay-tests --bin tour-client" >&2
cargo build --quiet -p mcp-replay-cli
cargo build --quiet -p mcp-replay-tests --bin tour-client
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
MCP_REPLAY="$BIN/mcp-replay"
SERVER=(node "$EVERYTHING" stdio)

mkdir -p "$OUT"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

for name in "${CLIENTS[@]}"; do
  case "$name" in
    python) client=("$PY" peers/python/tour_client.py --tour everything) ;;
    ts) client=(node peers/node/tour_client.mjs --tour everything) ;;
    rmcp) client=("$BIN/tour-client") ;;
    *) echo "record-client-matrix: unknown client $name (python, ts or rmcp)" >&2; exit 2 ;;
  esac
  echo "==> $name: recording" >&2
  rm -f "$OUT/$name.jsonl" "$OUT/$name.observed"
  if ! "${client[@]}" -- "$MCP_REPLAY" record -o "$OUT/$name.jsonl" -- "${SERVER[@]}" >"$SCRATCH/$name.observed"; then
    echo "record-client-matrix: the $name client failed; its last observations:" >&2
    tail -n 5 "$SCRATCH/$name.observed" >&2
    exit 1
  fi
  # The recorder writes when the session ends, which may be just after the client exits.
  for _ in $(seq 50); do [ -s "$OUT/$name.jsonl" ] && break; sleep 0.1; done
  [ -s "$OUT/$name.jsonl" ] || { echo "record-client-matrix: no fixture written for $name" >&2; exit 1; }
  mv "$SCRATCH/$name.observed" "$OUT/$name.observed"
  echo "    $OUT/$name.jsonl: $(wc -l <"$OUT/$name.jsonl") lines; $OUT/$name.observed: $(wc -l <"$OUT/$name.observed") observations" >&2

  for run in $(seq "$CHECK"); do
    echo "==> $name: live check $run of $CHECK (no proxy)" >&2
    "${client[@]}" -- "${SERVER[@]}" >"$SCRATCH/$name.check"
    if ! diff -u "$OUT/$name.observed" "$SCRATCH/$name.check" >&2; then
      echo "record-client-matrix: $name observed something else in live run $run: the observations depend on timing" >&2
      exit 1
    fi
  done
done
