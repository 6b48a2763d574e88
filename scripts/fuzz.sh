#!/usr/bin/env bash
# Fuzzes the public API of the mcp-replay crate with cargo-fuzz (libFuzzer); the targets
# are in fuzz/fuzz_targets/ and described in fuzz/README.md. Not part of `cargo test`.
#
#   scripts/fuzz.sh                      every target for 1,000,000 executions (about
#                                        35 minutes in all on 2 cores)
#   scripts/fuzz.sh 300                  every target for 300 seconds
#   scripts/fuzz.sh -runs=2000000        every target for 2,000,000 executions
#   scripts/fuzz.sh 60 normalizer        only the named targets
#   scripts/fuzz.sh --cmin               rewrite fuzz/corpus/<target> as the minimized
#                                        union of it, the seeds and the working corpus
#
# Installs cargo-fuzz from the Rust registry into fuzz/.tools (gitignored) if it is missing.
# Works on a stable toolchain: without a sanitizer (the default) cargo-fuzz passes only
# stable rustc flags; with one (FUZZ_SANITIZER=address) it passes -Zsanitizer, which
# RUSTC_BOOTSTRAP=1 (set then) lets a stable rustc accept. The working corpus a run grows is kept in
# fuzz/.work/corpus/<target> (gitignored), so later runs continue from it; crashes are
# written to fuzz/artifacts/<target>/. Targets run $FUZZ_JOBS at a time (default: the
# number of cores, one libFuzzer process each).
#
# Prints, per target, the executions, exec/s and crashes; exits non-zero on any crash
# (or hang, OOM, leak, or a fuzzer that failed to run).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZ="$ROOT/fuzz"
cd "$FUZZ"

# value_model first: it is the slowest by far, and the others share the second lane meanwhile.
ALL_TARGETS=(value_model fixture_parser normalizer selector_parser stdio_framing mcporter_importer
    fast_path validator sse_parser fixture_header http_front http_bridge)
CARGO_FUZZ_VERSION=0.13.2
# The default budget: 1,000,000 executions of each target, whatever the machine's speed
# (a time budget on a slower or busier machine would run fewer). On this project's 2-core
# machine that is about 35 minutes: value_model (a recording, the secret guard and a
# replay's comparisons for each input, an in-process replay for a quarter of them: 450 to
# 650 exec/s) takes one lane for all of it while the others run one after the other in the
# second (rates in fuzz/README.md).
budget=(-runs=1000000)
budget_text="1000000 runs each (the default)"
targets=()
cmin=0
for arg in "$@"; do
    case "$arg" in
        --cmin) cmin=1 ;;
        -runs=*[!0-9]* | -runs=) echo "fuzz.sh: bad budget $arg (want -runs=N)" >&2; exit 2 ;;
        -runs=*) budget=("$arg"); budget_text="${arg#-runs=} runs each" ;;
        -max_total_time=*) budget=("$arg"); budget_text="${arg#-max_total_time=} s each" ;;
        *[!0-9]*)
            if [[ " ${ALL_TARGETS[*]} " == *" $arg "* ]]; then
                targets+=("$arg")
            else
                echo "fuzz.sh: unknown argument or target '$arg' (targets: ${ALL_TARGETS[*]})" >&2
                exit 2
            fi
            ;;
        '') ;;
        *) budget=(-max_total_time="$arg"); budget_text="$arg s each" ;;
    esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL_TARGETS[@]}")

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$FUZZ/target}"
export PATH="$FUZZ/.tools/bin:$PATH"

# --- install -----------------------------------------------------------------------
if ! cargo fuzz --version 2>/dev/null | grep -qF "$CARGO_FUZZ_VERSION"; then
    echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION into fuzz/.tools"
    cargo install cargo-fuzz --locked --version "=$CARGO_FUZZ_VERSION" --root "$FUZZ/.tools"
fi

# --- build (release, with debug assertions and overflow checks) ----------------------
# No sanitizer by default: mcp-replay has no unsafe code, and AddressSanitizer makes
# these allocation-heavy targets about 5 times slower. FUZZ_SANITIZER=address (or leak,
# memory, thread) builds with one.
SANITIZER="${FUZZ_SANITIZER:-none}"
if [[ $SANITIZER != none ]]; then
    export RUSTC_BOOTSTRAP=1 # for -Zsanitizer on a stable rustc
fi
echo "== building the fuzz targets (sanitizer: $SANITIZER, CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
cargo fuzz build --release --debug-assertions --sanitizer "$SANITIZER"
BIN="$CARGO_TARGET_DIR/$(rustc -vV | sed -n 's/^host: //p')/release"

# --- seeds from the repository's own files -----------------------------------------------
# Rebuilt every run into fuzz/.work/seeds/<target> from the fixtures and recordings
# and fuzz/seeds/; the committed, minimized corpus is fuzz/corpus/<target>.
WORK="$FUZZ/.work"
SEEDS="$WORK/seeds"
rm -rf "$SEEDS"
mkdir -p "${targets[@]/#/$SEEDS/}"
shopt -s nullglob globstar
fixtures=("$ROOT"/fixtures/*.jsonl "$ROOT"/{,mcp-replay/}tests/fixtures/**/*.jsonl
    "$ROOT"/docs/examples/*.jsonl)
recordings=("$ROOT"/mcp-replay/tests/fixtures/mcporter/*.ndjson)
rulefiles=("$ROOT"/{,mcp-replay/}tests/fixtures/**/*.rules.json)

# Every line of the given files, one file each (with \n and with \r\n).
split_lines() {
    local out="$1" n=0 f line
    shift
    for f in "$@"; do
        while IFS= read -r line || [[ -n "$line" ]]; do
            [[ -n "$line" ]] || continue
            n=$((n + 1))
            printf '%s\n' "$line" >"$out/line-$n"
            printf '%s\r\n' "$line" >"$out/crlf-$n"
        done <"$f"
    done
}
# The first 1, 2, 4, ... lines of each recording while under 8 KiB (a whole recording
# can be larger than -max_len).
prefixes() {
    local out="$1" f k
    shift
    for f in "$@"; do
        for k in 1 2 4 8 16 32 64; do
            head -n "$k" "$f" >"$out/$(basename "$f").$k"
            [[ $(wc -c <"$out/$(basename "$f").$k") -le 8192 ]] || rm "$out/$(basename "$f").$k"
        done
    done
}
for t in "${targets[@]}"; do
    s="$SEEDS/$t"
    case "$t" in
        fixture_parser) cp "${fixtures[@]}" "$s/" 2>/dev/null || true ;;
        normalizer) split_lines "$s" "${fixtures[@]}" "${recordings[@]}" "${rulefiles[@]}" ;;
        stdio_framing) split_lines "$s" "${fixtures[@]}" "${recordings[@]}" ;;
        mcporter_importer) prefixes "$s" "${recordings[@]}" ;;
        fast_path) # the fixtures' server messages with integer ids, as a server sends them
            n=0
            for f in "${fixtures[@]}"; do
                while IFS= read -r line || [[ -n "$line" ]]; do
                    case "$line" in
                        '{"direction":"server->client","message":'*) ;;
                        *) continue ;;
                    esac
                    n=$((n + 1))
                    line=${line#'{"direction":"server->client","message":'}
                    printf '%s' "${line%\}}" | sed -E 's/"id":"<[A-Z_]+(:[0-9]+)?>"/"id":7/' >"$s/msg-$n"
                done <"$f"
            done
            ;;
        selector_parser) # hand-made selectors, one a line
            n=0
            while IFS= read -r line; do
                n=$((n + 1))
                printf '%s' "$line" >"$s/hand-$n"
            done <"$FUZZ/seeds/selectors.txt"
            ;;
    esac
done

# Per-target libFuzzer options: input size cap and dictionary.
options() {
    case "$1" in
        selector_parser) echo "-max_len=256 -dict=$FUZZ/dict/selector.dict" ;;
        mcporter_importer) echo "-max_len=8192 -dict=$FUZZ/dict/json.dict" ;;
        sse_parser) echo "-max_len=4096 -dict=$FUZZ/dict/sse.dict" ;;
        # A few requests or answers, a session: longer inputs add nothing but time.
        http_front | http_bridge) echo "-max_len=2048 -dict=$FUZZ/dict/json.dict" ;;
        value_model) echo "-max_len=512 -dict=$FUZZ/dict/json.dict" ;;
        # fixture_parser: check_secrets() makes long inputs slow (the secret patterns'
        # lazy DFA is rebuilt for every new input), and most fixtures fit in 4 KiB.
        *) echo "-max_len=4096 -dict=$FUZZ/dict/json.dict" ;;
    esac
}

# --- minimize the committed corpus ------------------------------------------------------
if [[ $cmin == 1 ]]; then
    for t in "${targets[@]}"; do
        mkdir -p "$WORK/corpus/$t" "$FUZZ/corpus/$t"
        rm -rf "$WORK/cmin/$t"
        mkdir -p "$WORK/cmin/$t"
        # Edge coverage only (no hit counts): a few hundred inputs, not thousands.
        # shellcheck disable=SC2046
        "$BIN/$t" -merge=1 -use_counters=0 $(options "$t") -timeout=10 "$WORK/cmin/$t" \
            "$FUZZ/corpus/$t" "$SEEDS/$t" "$WORK/corpus/$t" >"$WORK/cmin-$t.log" 2>&1 || {
            echo "fuzz.sh: merging $t failed, see $WORK/cmin-$t.log" >&2
            exit 1
        }
        rm -rf "$FUZZ/corpus/$t"
        mv "$WORK/cmin/$t" "$FUZZ/corpus/$t"
        echo "$t: $(find "$FUZZ/corpus/$t" -type f | wc -l) files in fuzz/corpus/$t"
    done
    exit 0
fi

# --- fuzz -------------------------------------------------------------------------------
run_target() {
    local t="$1" log="$WORK/logs/$1.log"
    mkdir -p "$WORK/corpus/$t" "$FUZZ/corpus/$t" "$FUZZ/artifacts/$t"
    touch "$WORK/logs/$t.start"
    local status=0 limit=("${budget[@]}")
    # shellcheck disable=SC2046
    "$BIN/$t" "${limit[@]}" $(options "$t") -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$FUZZ/artifacts/$t/" \
        "$WORK/corpus/$t" "$FUZZ/corpus/$t" "$SEEDS/$t" >"$log" 2>&1 || status=$?
    local execs rate
    # The inputs libFuzzer wrote: crash-*, timeout-*, oom-*, leak-*, slow-unit-*.
    find "$FUZZ/artifacts/$t" -type f -newer "$WORK/logs/$t.start" | sed "s|^$ROOT/||" \
        >"$WORK/logs/$t.artifacts"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    if [[ -z "$execs" ]]; then # no final stats (killed): the last status line
        execs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
    fi
    printf '%s %s %s %s\n' "$t" "${execs:-0}" "${rate:-0}" "$status" >"$WORK/logs/$t.result"
}

mkdir -p "$WORK/logs"
rm -f "$WORK"/logs/*.result
jobs_max="${FUZZ_JOBS:-$(nproc)}"
echo "== fuzzing ${targets[*]} for $budget_text, $jobs_max at a time (logs in fuzz/.work/logs)"
start=$SECONDS
for t in "${targets[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do
        wait -n || true
    done
    echo "   $(date +%T) $t"
    run_target "$t" &
done
wait

failed=0
printf '\n%-18s %12s %9s %8s\n' target executions exec/s crashes
for t in "${targets[@]}"; do
    read -r name execs rate status <"$WORK/logs/$t.result"
    crashes=$(wc -l <"$WORK/logs/$t.artifacts")
    printf '%-18s %12s %9s %8s' "$name" "$execs" "$rate" "$crashes"
    if [[ $crashes -gt 0 ]]; then
        failed=1
        printf '   %s' "$(tr '\n' ' ' <"$WORK/logs/$t.artifacts")"
    elif [[ $status -ne 0 ]]; then
        failed=1
        printf '   libFuzzer exited %s, see fuzz/.work/logs/%s.log' "$status" "$t"
    fi
    printf '\n'
done
echo "== $((SECONDS - start)) s of fuzzing"
if [[ $failed -ne 0 ]]; then
    echo "fuzz.sh: FAILED. Reproduce an input with  $BIN/TARGET FILE  (fuzz/README.md)" >&2
    exit 1
fi
