#!/usr/bin/env bash
# Many clients at once against one `mcp-replay serve --http --sessions unlimited` of a real
# recording (tests/fixtures/matrix/python.jsonl: the Python SDK's tour of server-everything,
# 62 lines: calls, progress, sampling, elicitation and roots requests from the server, list
# changes), in two rounds of SESSIONS client sessions, AT_ONCE at a time:
#
#   - half walked by `mcp-replay replay --url -j AT_ONCE/2` (the harness's own Streamable HTTP
#     client: each replay its own initialize, session, SSE streams; every answer compared to
#     the recording, so a message of another session is a finding);
#   - half by scripts/load_http_client.py (a stdlib client: own request ids, progress tokens
#     and session id checked on everything it is sent; the request latencies);
#   - a quarter as many again by the same client against a copy of the recording with faults
#     on cue (its first tools/call answered with an error, its ping 50 ms late), served by
#     the same process at its own path;
#   - and, in the first round, SDK sessions (SESSIONS/50, at least 4) by the Python SDK's tour
#     client (peers/python/tour_client.py, installed by the peers crate if missing), whose
#     output must be what it printed live.
#
# Then the mock's own count (every session clean), its memory after each round (VmRSS,
# VmHWM: what ended sessions leave behind), and the latencies. Exit 0 when all of it holds.
#
#   scripts/load-http.sh              1,000 sessions a round, 64 at a time
#   scripts/load-http.sh 64 16        the short form .ci/run runs
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SESSIONS="${1:-1000}"
AT_ONCE="${2:-64}"
HALF=$(( SESSIONS / 2 ))
JOBS=$(( AT_ONCE / 2 ))
SDK=$(( SESSIONS / 50 )); (( SDK < 4 )) && SDK=4
FAULTED=$(( HALF / 4 )); (( FAULTED < 1 )) && FAULTED=1
FIXTURE=tests/fixtures/matrix/python.jsonl
OBSERVED=tests/fixtures/matrix/python.observed
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$TARGET/debug/mcp-replay"
WORK="$(mktemp -d)"
trap 'kill "$SERVE" 2>/dev/null || true; rm -rf "$WORK"' EXIT

cargo build -q -p mcp-replay-cli --bin mcp-replay
PY="$ROOT/peers/python/.venv/bin/python"
if [[ ! -x "$PY" ]]; then
    echo "load-http: installing the test peers (the Python SDK) first" >&2
    cargo test -q -p mcp-replay-peers >/dev/null
fi

{
    echo '{"mcp_replay":1,"faults":{"seed":7,"faults":[{"method":"tools/call","nth":1,"error":{"code":-32603,"message":"upstream down"}},{"method":"ping","delay_ms":50}]}}'
    cat "$FIXTURE"
} >"$WORK/faulted.jsonl"
"$BIN" serve --http 127.0.0.1:0 --sessions unlimited --pace 0 "$FIXTURE" "$WORK/faulted.jsonl" \
    2>"$WORK/serve.err" &
SERVE=$!
for _ in $(seq 100); do
    grep -q "listening on" "$WORK/serve.err" 2>/dev/null && break
    sleep 0.1
done
URL="$(sed -n 's/.*listening on \(http:[^ ]*\/python\)$/\1/p' "$WORK/serve.err" | head -1)"
[[ -n "$URL" ]] || { cat "$WORK/serve.err" >&2; exit 1; }
FAULTED_URL="${URL%/python}/faulted"
memory() { awk '/VmRSS|VmHWM/ {printf "%s %s kB  ", $1, $2}' "/proc/$SERVE/status"; echo; }
echo "load-http: serve --http at $URL; $SESSIONS sessions a round, $AT_ONCE at a time"
echo "load-http: memory before: $(memory)"

round() {
    local n="$1" first="$2" sdk="$3" failed=0
    local fixtures=()
    for _ in $(seq "$HALF"); do fixtures+=("$FIXTURE"); done
    "$BIN" replay --url "$URL" -j "$JOBS" "${fixtures[@]}" >"$WORK/replay-$n.out" 2>&1 &
    local replay=$!
    python3 scripts/load_http_client.py "$URL" "$FIXTURE" --sessions "$HALF" \
        --at-once "$JOBS" --first "$first" >"$WORK/client-$n.json" &
    local client=$!
    python3 scripts/load_http_client.py "$FAULTED_URL" "$WORK/faulted.jsonl" \
        --sessions "$FAULTED" --at-once 4 --first $(( first + 100000 )) >"$WORK/faulted-$n.json" &
    local faulted=$!
    local sdk_ok=0
    for i in $(seq "$sdk"); do
        if "$PY" peers/python/tour_client.py --tour everything --url "$URL" >"$WORK/sdk-$i.out" 2>"$WORK/sdk-$i.err" \
            && cmp -s "$WORK/sdk-$i.out" "$OBSERVED"; then
            sdk_ok=$(( sdk_ok + 1 ))
        else
            echo "load-http: SDK session $i differs:" >&2; diff "$WORK/sdk-$i.out" "$OBSERVED" | head -5 >&2 || true
        fi
    done
    wait "$replay" || failed=1
    wait "$client" || failed=1
    wait "$faulted" || failed=1
    echo "load-http: round $n: replay --url: $(tail -1 "$WORK/replay-$n.out")"
    python3 - "$WORK/client-$n.json" "$WORK/faulted-$n.json" <<'EOF'
import json, sys
for path, who in zip(sys.argv[1:], ["own client", "own client, faults on cue"]):
    r = json.load(open(path))
    print(f"load-http:          {who}: {r['whole']} of {r['sessions']} sessions whole, "
          f"{r['requests']} requests ({r['error_answers']} answered with an error), "
          f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms")
    for p in r["problems"][:5]:
        print(f"load-http:          {p}")
EOF
    (( sdk > 0 )) && echo "load-http:          Python SDK tour client: $sdk_ok of $sdk sessions as printed live"
    (( sdk_ok == sdk )) || failed=1
    echo "load-http:          memory after: $(memory)"
    return "$failed"
}

status=0
round 1 1 "$SDK" || status=1
round 2 $(( HALF + 1 )) 0 || status=1
kill -TERM "$SERVE"
wait "$SERVE" || status=1
tail -1 "$WORK/serve.err" | sed 's/^/load-http: /'
EXPECT=$(( 4 * HALF + SDK + 2 * FAULTED ))
grep -q "$EXPECT sessions: $EXPECT ok, 0 with findings" "$WORK/serve.err" || {
    echo "load-http: the mock did not count $EXPECT clean sessions:" >&2
    grep -v "^mcp-replay serve: listening" "$WORK/serve.err" | head -40 >&2
    status=1
}
echo "load-http: $([[ $status == 0 ]] && echo ok || echo FAILED)"
exit "$status"
