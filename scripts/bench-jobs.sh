#!/usr/bin/env bash
# bench-jobs: `mcp-replay replay -j 1` against `-j 2`, side by side in one run, on suites
# of 10, 40 and 160 fixtures against server-everything over stdio (one Node process per
# fixture). Each size runs -j 1, -j 2, -j 1, -j 2; the table gives each wall time (the
# command's own summary) and the ratio of the medians. docs/PERFORMANCE.md, "Suites at
# scale", holds the figures.
#
#   scripts/bench-jobs.sh            # 10, 40, 160
#   scripts/bench-jobs.sh 10 40      # the sizes given
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 40 160)
cargo build -q --release -p mcp-replay-cli
bash peers/install.sh >/dev/null
mcp=target/release/mcp-replay
everything=peers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js
pair=(mcp-replay/tests/fixtures/everything/echo.jsonl mcp-replay/tests/fixtures/everything/elicit_decline.jsonl)
echo "| fixtures | -j 1 (s) | -j 2 (s) | -j 2 / -j 1 |"
echo "|---|---|---|---|"
for n in "${sizes[@]}"; do
    fixtures=()
    for ((i = 0; i < n; i++)); do fixtures+=("${pair[i % 2]}"); done
    declare -a one=() two=()
    for round in 1 2; do
        for j in 1 2; do
            line=$("$mcp" replay -j "$j" "${fixtures[@]}" -- node "$everything" stdio 2>/dev/null | tail -1)
            case "$line" in
            "$n passed, 0 failed ("*) ;;
            *) echo "bench-jobs: -j $j on $n fixtures: $line" >&2; exit 1 ;;
            esac
            secs=$(sed -E 's/.*\(([0-9.]+) s\)$/\1/' <<<"$line")
            if [ "$j" = 1 ]; then one+=("$secs"); else two+=("$secs"); fi
        done
    done
    python3 - "$n" "${one[@]}" "${two[@]}" <<'PY'
import statistics, sys
n, a1, a2, b1, b2 = sys.argv[1], *map(float, sys.argv[2:6])
one, two = statistics.median([a1, a2]), statistics.median([b1, b2])
print(f"| {n} | {a1:.1f}, {a2:.1f} | {b1:.1f}, {b2:.1f} | {two / one:.2f} |")
PY
done
