#!/usr/bin/env bash
# explore-runs: `mcp-replay explore` (release) RUNS times with one seed against each server
# (docs/explore.md, docs/PERFORMANCE.md "Exploring"): every run's report must be the same
# (the same calls, findings, shrunk arguments and shapes), and each run's wall time gives
# the calls per second (the generated calls and the shrinking calls together, from the
# report). Wall times on a shared machine: compare the servers of one run, not runs.
#
#   scripts/explore-runs.sh            # 20 runs of each server
#   scripts/explore-runs.sh 3          # 3 runs
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
cargo build -q --release -p mcp-replay-cli --bin mcp-replay
cargo build -q --release --bin demo-server
bash peers/install.sh >/dev/null
mcp=target/release/mcp-replay
work=$(mktemp -d "${TMPDIR:-/tmp}/explore-runs.XXXXXX")
trap 'rm -rf "$work"' EXIT
# name | explore options | server command
servers=(
    "demo (Rust, rmcp)|--calls 100|target/release/demo-server"
    "planted, fixed (Python SDK)|--calls 20|peers/python/.venv/bin/python peers/python/planted_server.py --fixed"
    "planted (TypeScript SDK)|--calls 20 --hang 1s --shrink-calls 8|node peers/node/planted_server.mjs"
    "planted (Python SDK)|--calls 20 --hang 1s --shrink-calls 8|peers/python/.venv/bin/python peers/python/planted_server.py"
)
echo "| server | runs | same report | findings | calls (with shrinking) | s per run (median) | calls/s |"
echo "|---|---:|---|---:|---:|---:|---:|"
for entry in "${servers[@]}"; do
    IFS='|' read -r name options command <<<"$entry"
    times=()
    for ((i = 1; i <= runs; i++)); do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$mcp" explore --seed 7 $options -- $command >"$work/report.$i" 2>/dev/null || true
        end=$(date +%s.%N)
        times+=("$(echo "$end - $start" | bc)")
    done
    same=yes differs=
    for ((i = 2; i <= runs; i++)); do
        cmp -s "$work/report.1" "$work/report.$i" || { same="no (run $i differs)"; differs=$i; }
    done
    findings=$(grep -c "^  FOUND" "$work/report.1" || true)
    generated=$(head -1 "$work/report.1" | sed -n 's/.*, \([0-9]*\) calls.*/\1/p')
    shrunk=$(sed -n 's/.*shrunk in \([0-9]*\) calls.*/\1/p' "$work/report.1" | paste -sd+ | bc)
    calls=$((generated + ${shrunk:-0}))
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    rate=$(echo "scale=1; $calls / $median" | bc)
    printf '| %s | %d | %s | %d | %d | %.2f | %s |\n' "$name" "$runs" "$same" "$findings" "$calls" "$median" "$rate"
    [ -z "$differs" ] || diff "$work/report.1" "$work/report.$differs" >&2 || true
done
