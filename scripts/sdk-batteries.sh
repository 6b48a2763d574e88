#!/usr/bin/env bash
# The battery of docs/sdks.md against every Rust SDK peer, in process, each in its own
# workspace (their serde_json features stay theirs), built into peers/target. The README's
# test command runs turbomcp's and pmcp's (tests/sdk_peers.rs); this runs all five, as
# often as asked (default 1): `bash scripts/sdk-batteries.sh 3`.
set -euo pipefail
cd "$(dirname "$0")/.."
times="${1:-1}"
status=0
for sdk in turbomcp pmcp mcpkit tower-notes rust-mcp-sdk; do
  for run in $(seq 1 "$times"); do
    if out=$(cargo test --quiet --locked --manifest-path "peers/$sdk/Cargo.toml" --target-dir peers/target --test battery 2>&1); then
      echo "$sdk run $run: $(grep -o 'test result: .*passed; [0-9]* failed' <<<"$out")"
    else
      echo "$sdk run $run: FAILED"
      echo "$out" | tail -40
      status=1
    fi
  done
done
exit "$status"
