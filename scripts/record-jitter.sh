#!/usr/bin/env bash
# record-jitter: re-records tests/fixtures/jitter/session.jsonl, one real session between
# the Python `mcp` SDK client (peers/python/jitter_client.py) and `demo-server jitter`,
# through the `mcp-replay record` proxy. The server's messages are the same on every run,
# their timing is random: tests/jitter.rs replays this fixture against fresh servers.
#
#   bash scripts/record-jitter.sh
#
# Needs the Python peer (`bash peers/install.sh`); builds the two binaries first (debug
# profile, the workspace's target directory). Review the fixture as text before committing.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -p mcp-replay-cli -p mcp-replay-tests --bin mcp-replay --bin demo-server
target="${CARGO_TARGET_DIR:-target}"
mkdir -p tests/fixtures/jitter
peers/python/.venv/bin/python peers/python/jitter_client.py -- \
    "$target/debug/mcp-replay" record -o tests/fixtures/jitter/session.jsonl -- \
    "$target/debug/demo-server" jitter
