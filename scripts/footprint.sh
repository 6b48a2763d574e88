#!/usr/bin/env bash
# footprint: how much distinct machine code each side of the in-process benchmarks runs.
#
#   scripts/footprint.sh          # stdio (benches/replay.rs) and HTTP (benches/http.rs),
#                                 # harness and raw client, N = 1 and 100 (about 10 s once
#                                 # the benches are built)
#
# Callgrind with --dump-instr=yes, warm, counting only inside the bench's `measured`
# function, as scripts/bench.sh does; scripts/footprint.py reads each output. On a machine
# whose front end is the limit (this one: 2 cores of an AMD EPYC, virtualized), the
# wall-clock ratio of the two sides follows the ratio of distinct code lines more closely
# than the ratio of instructions: docs/PERFORMANCE.md, "the clock follows the code a session
# runs".
# Outputs stay in ${CARGO_TARGET_DIR:-target}/mcp-replay-bench/fp.*.out.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || {
    echo "footprint.sh: valgrind is needed (apt-get install valgrind)" >&2
    exit 2
}
target=${CARGO_TARGET_DIR:-target}
out=$target/mcp-replay-bench
mkdir -p "$out"

binary() {
    cargo bench -p mcp-replay-demo --bench "$1" --no-run 2>&1 |
        sed -n "s/.*Executable benches\/$1\.rs (\(.*\))\$/\1/p" | tail -1
}
echo "== build (bench profile)" >&2
declare -A bin
for bench in replay http; do
    bin[$bench]=$(binary "$bench")
    [[ -x "${bin[$bench]}" ]] || {
        echo "footprint.sh: no binary for benches/$bench.rs" >&2
        exit 1
    }
done

echo "| transport | N | side | instructions | code lines (64 B) | pages (4 KiB) | lines run ≥ N times | their pages |"
echo "|---|---:|---|---:|---:|---:|---:|---:|"
for bench in replay http; do
    transport=$([[ $bench == replay ]] && echo stdio || echo HTTP)
    for n in 1 100; do
        declare -A row=()
        for side in harness raw; do
            file=$out/fp.$bench.$side.$n.out
            valgrind --tool=callgrind --dump-instr=yes --toggle-collect='*measured*' \
                --callgrind-out-file="$file" "${bin[$bench]}" --case "$side" --n "$n" --warm \
                >"$file.log" 2>&1 || {
                echo "footprint.sh: callgrind run failed, see $file.log" >&2
                exit 1
            }
            IFS=$'\t' read -r _ ir lines pages hot hotpages < <(scripts/footprint.py "$n" "$file")
            row[$side]="$ir $lines $pages $hot $hotpages"
            echo "| $transport | $n | $side | $ir | $lines | $pages | $hot | $hotpages |"
        done
        read -r hi hl hp hh hhp <<<"${row[harness]}"
        read -r ri rl rp rh rhp <<<"${row[raw]}"
        awk -v t="$transport" -v n="$n" -v a="$hi $hl $hp $hh $hhp" -v b="$ri $rl $rp $rh $rhp" 'BEGIN {
            split(a, x, " "); split(b, y, " ");
            printf "| %s | %s | harness/raw | %.2fx | %.2fx | %.2fx | %.2fx | %.2fx |\n", t, n,
                x[1] / y[1], x[2] / y[2], x[3] / y[3], x[4] / y[4], x[5] / y[5] }'
    done
done
