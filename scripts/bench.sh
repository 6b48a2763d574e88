#!/usr/bin/env bash
# bench: every measurement of docs/PERFORMANCE.md with one command.
#
#   scripts/bench.sh            # the full run (several minutes on 2 cores)
#   scripts/bench.sh --quick    # a smoke run: small inputs, few repetitions; not for figures
#   BENCH_LARGE=1 scripts/bench.sh   # also callgrind at N = 10 000 (several more minutes)
#
#   1. builds the release binaries `mcp-replay` (mcp-replay-cli) and `demo-server` (the root
#      package, mcp-replay-tests, from demo/src/bin/) that the whole-process case runs;
#   2. `cargo bench --bench replay`: in-process overhead, per-test fixed cost, normalization
#      and comparison throughput, memory, whole process; each figure a ratio (or difference)
#      of two sides within that one run, medians of interleaved repetitions;
#   3. callgrind instruction counts of the in-process cases, which a busy machine does not
#      change: harness and raw client at N = 1, 100, 1000 calls (warm: one-time costs out),
#      the fixed cost cold and warm, and the `mcp-replay serve` process;
#   4. `callgrind_annotate` top inclusive functions of the harness at N = 100 and of `serve`;
#   5. a `/usr/bin/time -f '%e %M'` cross-check of the whole-process figures.
#
# Everything is also written to ${CARGO_TARGET_DIR:-target}/mcp-replay-bench/ (bench.md,
# callgrind.md, cg.*.out). Uses the workspace's target directory, release profile.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=""
case "${1:-}" in
"") ;;
--quick) quick=--quick ;;
*)
    echo "usage: scripts/bench.sh [--quick]" >&2
    exit 2
    ;;
esac
for tool in valgrind callgrind_annotate; do
    command -v "$tool" >/dev/null || {
        echo "bench.sh: $tool is needed (apt-get install valgrind)" >&2
        exit 2
    }
done

target=${CARGO_TARGET_DIR:-target}
out=$target/mcp-replay-bench
mkdir -p "$out"

machine() {
    echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

echo "== build (release)" >&2
cargo build --release -p mcp-replay-cli --bin mcp-replay -p mcp-replay-tests --bin demo-server >&2
bench=$(cargo bench --bench replay --no-run 2>&1 | sed -n 's/.*Executable benches\/replay\.rs (\(.*\))$/\1/p' | tail -1)
[[ -x "$bench" ]] || {
    echo "bench.sh: could not find the bench binary (cargo bench --bench replay --no-run)" >&2
    exit 1
}

echo "== cargo bench --bench replay -- $quick" >&2
cargo bench --bench replay -- $quick | tee "$out/bench.md"

# --- callgrind ------------------------------------------------------------------------
# Only what runs inside the bench's `measured` function is counted (--toggle-collect).
ir() {
    local name=$1
    shift
    valgrind --tool=callgrind --toggle-collect='*measured*' \
        --callgrind-out-file="$out/cg.$name.out" "$bench" "$@" >"$out/cg.$name.log" 2>&1 ||
        {
            echo "bench.sh: callgrind run $name failed, see $out/cg.$name.log" >&2
            exit 1
        }
    sed -n 's/^totals: *//p' "$out/cg.$name.out"
}

echo "== callgrind (instruction counts)" >&2
declare -A I
for n in 1 100 1000; do
    I[harness.$n]=$(ir "harness.$n" --case harness --n "$n" --warm)
    I[raw.$n]=$(ir "raw.$n" --case raw --n "$n" --warm)
done
if [[ -n "${BENCH_LARGE:-}" ]]; then
    I[harness.10000]=$(ir harness.10000 --case harness --n 10000)
    I[raw.10000]=$(ir raw.10000 --case raw --n 10000)
fi
I[fixed-harness.cold]=$(ir fixed-harness.cold --case fixed-harness)
I[fixed-harness.warm]=$(ir fixed-harness.warm --case fixed-harness --warm)
I[fixed-raw.cold]=$(ir fixed-raw.cold --case fixed-raw)
I[fixed-raw.warm]=$(ir fixed-raw.warm --case fixed-raw --warm)
I[norm-harness]=$(ir norm-harness --case norm-harness)
I[norm-floor]=$(ir norm-floor --case norm-floor)
# Exploring the demo server in process (docs/PERFORMANCE.md, "Exploring"): 10 and 100 calls.
I[explore.10]=$(ir explore.10 --case explore --n 10 --warm)
I[explore.100]=$(ir explore.100 --case explore --n 100 --warm)

initialize='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"mcp-replay","version":"0.1.0"},"protocolVersion":"2025-11-25"}}'
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}'
printf '%s\n' "$call" | valgrind --tool=callgrind --callgrind-out-file="$out/cg.serve.out" \
    "$target/release/mcp-replay" serve fixtures/lookup_issue.jsonl >"$out/cg.serve.log" 2>&1
I[serve]=$(sed -n 's/^totals: *//p' "$out/cg.serve.out")

# The same over Streamable HTTP: `serve --http` answering one session by curl (initialize,
# initialized, the call, DELETE), the whole process.
valgrind --tool=callgrind --callgrind-out-file="$out/cg.serve-http.out" \
    "$target/release/mcp-replay" serve --http 127.0.0.1:0 fixtures/lookup_issue.jsonl 2>"$out/cg.serve-http.log" &
served=$!
url=
for _ in $(seq 1 300); do
    url=$(sed -n 's/^mcp-replay serve: listening on //p' "$out/cg.serve-http.log")
    [ -n "$url" ] && break
    sleep 0.1
done
H=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
sid=$(curl -s -D - -o /dev/null "${H[@]}" -d "$initialize" "$url" | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
H+=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
curl -s -o /dev/null "${H[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$url"
curl -s -o "$out/serve-http.answer" "${H[@]}" -d "$call" "$url"
curl -s -o /dev/null -X DELETE -H "Mcp-Session-Id: $sid" "$url"
wait "$served"
grep -q 'Issue 42' "$out/serve-http.answer" || { echo "serve --http gave no answer" >&2; exit 1; }
I[serve-http]=$(sed -n 's/^totals: *//p' "$out/cg.serve-http.out")

top() { # FILE N [REGEX]: the top N inclusive functions (matching REGEX), noise cut
    callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
        sed -n '/^Ir  *file:function/,$p' | sed 1,2d | sed 's/ \[[^]]*\]$//; s/???://' |
        grep -vE '(libc-start|below main|lang_start|__rust_begin_short|0x0000|^ *[0-9,]+ \([ 0-9.]+%\)  (main|replay::main|replay::measured)$)' |
        grep -E "${3:-.}" | awk -v n="$2" 'NR <= n' # awk reads it all: no SIGPIPE under pipefail
}

{
    echo
    echo "## Exploring in process (callgrind)"
    echo
    awk -v e10="${I[explore.10]}" -v e100="${I[explore.100]}" 'BEGIN {
        printf "explore, demo server: 10 calls %.1fM, 100 calls %.1fM instructions; %.0fk per call\n",
            e10 / 1e6, e100 / 1e6, (e100 - e10) / 90 / 1000 }'
    echo
    echo "## Instruction counts (callgrind; stable under load)"
    echo
    echo "Machine: $(machine)"
    echo
    awk -v h1="${I[harness.1]}" -v h100="${I[harness.100]}" -v h1000="${I[harness.1000]}" \
        -v r1="${I[raw.1]}" -v r100="${I[raw.100]}" -v r1000="${I[raw.1000]}" \
        -v fhc="${I[fixed-harness.cold]}" -v fhw="${I[fixed-harness.warm]}" \
        -v frc="${I[fixed-raw.cold]}" -v frw="${I[fixed-raw.warm]}" -v serve="${I[serve]}" -v servehttp="${I[serve-http]}" \
        -v nh="${I[norm-harness]}" -v nf="${I[norm-floor]}" '
    function k(x) { return sprintf("%.0fk", x / 1000) }
    function m(x) { return sprintf("%.1fM", x / 1e6) }
    BEGIN {
        print "| in-process case (warm) | harness | raw client | harness/raw |"
        print "|---|---:|---:|---:|"
        printf "| N = 1: whole session | %s | %s | %.2fx |\n", k(h1), k(r1), h1 / r1
        printf "| N = 100: whole session | %s | %s | %.2fx |\n", m(h100), m(r100), h100 / r100
        printf "| N = 1000: whole session | %s | %s | %.2fx |\n", m(h1000), m(r1000), h1000 / r1000
        hc = (h100 - h1) / 99; rc = (r100 - r1) / 99
        printf "| per call, N = 1 to 100 | %s | %s | %.2fx |\n", k(hc), k(rc), hc / rc
        hm = (h1000 - h100) / 900; rm = (r1000 - r100) / 900
        printf "| per call, N = 100 to 1000 | %s | %s | %.2fx |\n", k(hm), k(rm), hm / rm
        printf "| harness beyond raw, per call (N = 1 to 100 / 100 to 1000) | %s / %s | | |\n", k(hc - rc), k(hm - rm)
        print ""
        print "| fixed cost, fixtures/lookup_issue.jsonl (load + replay vs raw) | harness | raw client | difference |"
        print "|---|---:|---:|---:|"
        printf "| first in the process (cold) | %s | %s | %s |\n", m(fhc), m(frc), m(fhc - frc)
        printf "| warm | %s | %s | %s |\n", k(fhw), k(frw), k(fhw - frw)
        print ""
        printf "Case 3, the server lines of 1 MB of fixture: normalize + compare %s, floor (from_str + to_string of the same lines) %s: floor/harness %.2fx (goal >= 0.5x).\n", m(nh), m(nf), nf / nh
        print ""
        printf "`mcp-replay serve fixtures/lookup_issue.jsonl` answering one call, whole process: %s instructions.\n", m(serve)
        printf "`mcp-replay serve --http` answering one session of that call, whole process: %s instructions.\n", m(servehttp)
    }'
    echo
    echo "### Top inclusive functions: harness, N = 100, warm ($out/cg.harness.100.out)"
    echo
    echo '```text'
    top "$out/cg.harness.100.out" 45
    echo '```'
    echo
    echo "### The harness's own functions (mcp_replay::), N = 1000, warm ($out/cg.harness.1000.out)"
    echo
    echo '```text'
    top "$out/cg.harness.1000.out" 30 'mcp_replay::'
    echo '```'
    echo
    echo "### Top inclusive functions: mcp-replay serve, whole process ($out/cg.serve.out)"
    echo
    echo '```text'
    top "$out/cg.serve.out" 22
    echo '```'
    if [[ -n "${BENCH_LARGE:-}" ]]; then
        awk -v h="${I[harness.10000]}" -v r="${I[raw.10000]}" 'BEGIN {
            printf "\nN = 10 000 (cold): harness %.2fG, raw client %.2fG instructions: %.0fk / %.0fk per call, %.2fx.\n",
                h / 1e9, r / 1e9, h / 1e7, r / 1e7, h / r }'
        echo
        echo "### The harness's own functions (mcp_replay::), N = 10 000 ($out/cg.harness.10000.out)"
        echo
        echo '```text'
        top "$out/cg.harness.10000.out" 20 'mcp_replay::|from_iter'
        echo '```'
    fi
} | tee "$out/callgrind.md"

# --- /usr/bin/time cross-check --------------------------------------------------------
if [[ -x /usr/bin/time ]]; then
    {
        echo
        echo "## /usr/bin/time cross-check (one run each; %e has 10 ms resolution)"
        echo
        echo '```text'
        printf 'serve:            '
        printf '%s\n' "$call" | /usr/bin/time -f '%e s  %M KB max RSS' \
            "$target/release/mcp-replay" serve fixtures/lookup_issue.jsonl 2>&1 >/dev/null | tail -1
        printf 'replay:           '
        /usr/bin/time -f '%e s  %M KB max RSS' "$target/release/mcp-replay" replay \
            fixtures/lookup_issue.jsonl -- "$target/release/demo-server" 2>&1 >/dev/null | tail -1
        printf 'demo-server:      '
        printf '%s\n' "$initialize" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$call" |
            /usr/bin/time -f '%e s  %M KB max RSS' "$target/release/demo-server" 2>&1 >/dev/null | tail -1
        echo '```'
    } | tee -a "$out/callgrind.md"
fi

echo
echo "Machine at the end: $(machine)"
echo "Written: $out/bench.md, $out/callgrind.md, $out/cg.*.out"
