#!/usr/bin/env bash
# scale-suite: N generated fixtures and N #[mcp_fixture] tests against the bundled DemoServer.
#
#   scripts/scale-suite.sh [N]        # default N=500
#
# Generates a throw-away test crate `scale-suite` outside the repository's sources, in
# ${SCALE_SUITE_DIR:-${CARGO_TARGET_DIR:-<repo>/target}/scale-suite} (target/ is ignored by
# git), then:
#
#   1. build    `cargo test --no-run`: N macro expansions in a few test files;
#   2. record   `MCP_FIXTURE_UPDATE=1 cargo test`: most fixtures start as client lines only,
#               so the tests write that many DIFFERENT fixtures concurrently (atomic
#               writes). The pipelined ones (two requests in flight) start complete: a
#               recording from client lines alone sends one request at a time (documented),
#               and re-recording must leave them untouched. Afterwards every fixture must be
#               byte-identical to the one this script generated with its server lines
#               (expected/), which checks the generator and the deterministic writer, and
#               no temporary file may be left;
#   3. compare  `cargo test` (libtest, default parallel threads): N passed;
#   4. nextest  `cargo nextest run` (one process per test): N passed; skipped with a
#               message when cargo-nextest is not installed;
#   5. pending  three fixtures drift: with MCP_FIXTURE_UPDATE unset (`auto`) a failing
#               test writes NAME.jsonl.new outside CI and nothing under CI;
#               `mcp-replay test --check` writes nothing; `mcp-replay test --accept`
#               accepts, and the fixtures are as generated again;
#
# and prints one summary line with the wall times. Any failure exits non-zero with the
# tail of the failing log (full logs in the generated folder's logs/).
#
# Target directory: the workspace's own by default (CARGO_TARGET_DIR or <repo>/target).
# The generated crate reuses the repo's Cargo.lock, and its dev-dependencies pin every
# registry crate whose features would otherwise differ from what `cargo test` (the whole
# workspace) unifies (tokio's `signal`, rmcp's `client`, getrandom, regex-syntax, ...), so cargo
# computes the very same artifact hashes and reuses all ~80 registry crates (tokio, rmcp,
# schemars, serde, regex, ...) from the workspace build. Without that alignment, one extra
# feature on tokio or getrandom rebuilds tokio, uuid, chrono, rmcp and everything above
# them. The three path crates (mcp-replay-macros, mcp-replay, the demo) do compile once
# more: cargo hashes a path package relative to the workspace root, which differs here;
# they stay cached until their sources change. A private target dir builds all ~85 crates
# (about 75 s of CPU, so ~40-80 s on 2 cores) before the first test compiles.
#
# Knobs:
#   SCALE_TARGET_DIR=DIR  another target dir (e.g. a private one, for comparison);
#   SCALE_FILES=K         test files the N tests are split over (default 2: one rustc per
#                         core; every file is also one ~80 MB link);
#   SCALE_OPT_REGEX=1     build regex at opt-level 2 (one-time rebuild of regex, mcp-replay
#                         and the demo, ~1-2 min on 2 cores): a debug-built mcp-replay spends
#                         ~40 ms per process compiling its normalization/secret regexes,
#                         which dominates the nextest run (one process per test);
#   SCALE_SUITE_DIR=DIR   where to generate (a folder named scale-suite*).
set -euo pipefail

N=${1:-500}
if ! [[ $N =~ ^[0-9]+$ ]] || ((10#$N < 1 || 10#$N > 100000)); then
    echo "usage: $0 [N]   (N = number of tests, 1..100000, default 500)" >&2
    exit 2
fi
N=$((10#$N))

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORKSPACE_TARGET=${CARGO_TARGET_DIR:-$REPO/target}
OUT=${SCALE_SUITE_DIR:-$WORKSPACE_TARGET/scale-suite}
TARGET=${SCALE_TARGET_DIR:-$WORKSPACE_TARGET}
FILES=${SCALE_FILES:-2}
[[ $FILES =~ ^[0-9]+$ ]] && ((FILES >= 1)) || FILES=1
((FILES <= N)) || FILES=$N

say() { echo "scale-suite: $*" >&2; }
die() {
    say "FAILED: $*"
    exit 1
}

# Parts of the generated folder are deleted: refuse anything that is not clearly ours.
OUT=$(realpath -m "$OUT")
case "$OUT/" in
"$REPO"/target/*) ;; # ignored by git
"$REPO"/*) die "refusing to generate inside the repository's sources: $OUT" ;;
esac
[[ $(basename "$OUT") == scale-suite* ]] || die "SCALE_SUITE_DIR must be a folder named scale-suite*: $OUT"
REPO_REAL=$(realpath "$REPO")
[[ $REPO_REAL == "$REPO" ]] || case "$OUT/" in "$REPO_REAL"/target/*) ;; "$REPO_REAL"/*) die "refusing to generate inside the repository's sources: $OUT" ;; esac
rm -rf "$OUT/fixtures" "$OUT/expected" "$OUT/logs" "$OUT/gen"
mkdir -p "$OUT/fixtures" "$OUT/expected" "$OUT/logs" "$OUT/gen" "$OUT/tests" "$OUT/src"

# Compiled files are written to gen/ and moved into place only when they changed, so a
# rerun with the same N and an unchanged repo does not rebuild anything.
install_if_changed() { # generated-file destination
    if cmp -s "$1" "$2"; then rm -f "$1"; else mv -f "$1" "$2"; fi
}

export CARGO_TARGET_DIR="$TARGET"
export RUST_BACKTRACE=0
unset MCP_FIXTURE_UPDATE
manifest=(--manifest-path "$OUT/Cargo.toml")

now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { d = b - a; printf(d < 10 ? "%.1f" : "%.0f", d) }'; }

# ---------------------------------------------------------------- the crate
# rmcp and tokio as the demo package's [dependencies] ask for them (from cargo metadata, so
# workspace inheritance is resolved; the literal is the fallback without jq).
rmcp_dep='{ version = "3.11", default-features = false, features = ["server", "macros", "schemars"] }'
tokio_dep='{ version = "1", default-features = false, features = ["rt-multi-thread", "macros", "time", "io-util", "io-std"] }'
if command -v jq >/dev/null; then
    meta=$(cargo metadata --format-version 1 --no-deps --manifest-path "$REPO/Cargo.toml" 2>/dev/null || true)
    dep_line() {
        jq -r --arg name "$1" '
          .packages[] | select(.name == "mcp-replay-demo") | .dependencies[]
          | select(.name == $name and .kind == null)
          | "{ version = \"\(.req | ltrimstr("^"))\", default-features = \(.uses_default_features), features = \(.features | tojson) }"
        ' <<<"$meta" | head -n1
    }
    if [[ -n $meta ]]; then
        line=$(dep_line rmcp) && [[ -n $line ]] && rmcp_dep=$line
        line=$(dep_line tokio) && [[ -n $line ]] && tokio_dep=$line
    fi
fi

# Registry dev-dependencies, name -> spec (feature alignment below adds and widens them).
declare -A DEPS=([rmcp]=$rmcp_dep [tokio]=$tokio_dep)

write_manifest() {
    local profile=""
    if [[ ${SCALE_OPT_REGEX:-0} == 1 ]]; then
        local p
        for p in regex regex-automata regex-syntax aho-corasick; do
            profile+=$'\n'"[profile.dev.package.$p]"$'\n'"opt-level = 2"$'\n'
        done
    fi
    cat >"$OUT/gen/Cargo.toml" <<EOF
# Generated by scripts/scale-suite.sh.
[package]
name = "scale-suite"
version = "0.0.0"
edition = "2021"
publish = false
autobins = false
autoexamples = false
autobenches = false

# A package needs a target: the tests are the point, the library is empty.
[lib]
path = "src/lib.rs"
test = false
doctest = false

[dev-dependencies]
mcp-replay = { path = "$REPO/mcp-replay" }
mcp-replay-demo = { path = "$REPO/demo" }
$(for name in $(printf '%s\n' "${!DEPS[@]}" | sort); do echo "$name = ${DEPS[$name]}"; done)

# Only the generated tests themselves: no debuginfo (half the compile time, an 80 MB
# instead of a 180 MB binary per file) and no incremental cache (a cold build is faster
# without writing one; an unchanged rerun does not compile at all). Dependencies keep the
# dev profile, so their artifacts are shared with the workspace build.
[profile.dev.package.scale-suite]
debug = false
incremental = false
$profile
# Not a member of the repository's workspace (the folder may sit under it, in target/).
[workspace]
EOF
    install_if_changed "$OUT/gen/Cargo.toml" "$OUT/Cargo.toml"
}

# The repo's lock: the same versions, no new resolution (checked after the build).
cp "$REPO/Cargo.lock" "$OUT/Cargo.lock"
echo "//! Empty: the scale tests are under tests/." >"$OUT/gen/lib.rs"
install_if_changed "$OUT/gen/lib.rs" "$OUT/src/lib.rs"

# Feature alignment with `cargo test` at the root (see the header). `cargo tree` lists each
# package with its unified features; every registry package whose features differ here
# becomes a renamed dev-dependency pinned to the workspace's version and features. Twice,
# as a newly enabled feature can pull in a new optional dependency.
# A package cargo tree lists with two feature sets (the dev-dependencies of the proc-macro
# crate, mcp-replay-macros, resolve apart from the rest) is taken with their union: the
# set the workspace's test build compiles it with.
tree_features() { # cargo-tree-args...
    cargo tree "$@" -e normal,dev,build --prefix none -f '{p} [{f}]' |
        sed -E 's/ \(\*\)$//; s/ \(proc-macro\)$//' | { grep -v ' (/' || true; } | sort -u |
        python3 -c '
import sys
sets = {}
for line in sys.stdin:
    if len(line.split()) < 2:
        continue
    name, version, feats = (line.split(" ", 2) + ["[]"])[:3]
    sets.setdefault((name, version), set()).update(f for f in feats.strip()[1:-1].split(",") if f)
for (name, version), feats in sorted(sets.items()):
    print(name, version, "[" + ",".join(sorted(feats)) + "]")
'
}
aligned=()
differing=""
# --locked: never touch the repo's Cargo.lock.
if workspace_features=$(cd "$REPO" && tree_features --workspace --locked 2>"$OUT/logs/tree.log"); then
    for _pass in 1 2 3; do
        write_manifest
        # The repo's lock again each pass: a pass's `cargo tree` drops the packages its graph
        # lacks, and a crate pinned in the next pass (hyper-util) would then resolve their
        # newest version (hyper) instead of the repo's.
        cp "$REPO/Cargo.lock" "$OUT/Cargo.lock"
        scale_features=$(tree_features "${manifest[@]}" 2>"$OUT/logs/tree.log") ||
            die "cargo tree failed for the generated crate: $(tail -n 5 "$OUT/logs/tree.log")"
        # Registry packages of the scale build whose features differ from the workspace's.
        differing=$(comm -13 <(echo "$scale_features") <(echo "$workspace_features") |
            while read -r name version feats; do
                if grep -q "^$name $version " <<<"$scale_features"; then echo "$name $version $feats"; fi
            done)
        [[ -n $differing ]] || break
        while read -r name version feats; do
            feats=${feats#[}
            feats=${feats%]}
            defaults=false
            list=()
            IFS=, read -r -a all <<<"$feats"
            for f in "${all[@]}"; do
                if [[ $f == default ]]; then defaults=true; elif [[ -n $f ]]; then list+=("\"$f\""); fi
            done
            # By its own name: cargo refuses one crate under two names (rmcp, tokio are
            # widened in place). Two versions of one crate cannot both be pinned.
            if [[ " ${aligned[*]} " == *" $name@"* && " ${aligned[*]} " != *" $name@$version "* ]]; then
                say "warning: cannot align a second version of $name ($version)"
                continue
            fi
            DEPS[$name]="{ version = \"=${version#v}\", default-features = $defaults, features = [$(IFS=,; echo "${list[*]}")] }"
            [[ " ${aligned[*]} " == *" $name@$version "* ]] || aligned+=("$name@$version")
        done <<<"$differing"
    done
else
    say "warning: \`cargo tree --workspace --locked\` failed in $REPO (is Cargo.lock up to date?): no feature alignment, expect rebuilds: $(tail -n 3 "$OUT/logs/tree.log")"
    write_manifest
fi
[[ -z $differing ]] || say "warning: still built with other features than the workspace (rebuilds them): $(echo "$differing" | cut -d' ' -f1 | xargs)"
((${#aligned[@]} == 0)) || say "features aligned with \`cargo test\` (the workspace): ${aligned[*]}"

# ---------------------------------------------------------------- fixtures and tests
width=${#N}
((width >= 3)) || width=3

# Echo texts as JSON string literals (already escaped; `%d` is the test number): ASCII,
# UTF-8, escapes, empty, long, JSON-looking. None looks like a path, time, UUID or secret,
# which the default normalization would rewrite.
long=$(printf 'abcdefghij%.0s' {1..200})
ECHO_TEXTS=(
    'hello %d'
    'ünïcödé №%d ✓ — 日本語'
    'quote \"%d\" and backslash \\ and slash /'
    'tab\there, newline\nthere %d'
    ''
    '   spaces around %d   '
    "$long %d"
    '{\"json\": [%d, true, null]}'
)
TOKENS=('"<PROGRESS_TOKEN>"' '"tok-%d"' '%d') # placeholder, string, integer

C='{"direction":"client->server","message":'
S='{"direction":"server->client","message":'
result_text() { # label text-literal
    printf '%s{"jsonrpc":"2.0","id":"%s","result":{"content":[{"text":"%s","type":"text"}]}}}\n' "$S" "$1" "$2"
}

kinds=(0 0 0)
complete=0 # fixtures that start with their server lines
for ((f = 0; f < FILES; f++)); do
    cat >"$OUT/gen/scale_$f.rs" <<'EOF'
//! Generated by scripts/scale-suite.sh: one #[mcp_fixture] test per fixture.

use mcp_replay::{mcp_fixture, Transport};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;
EOF
done

for ((i = 0; i < N; i++)); do
    name=$(printf "t%0${width}d" "$i")
    client="$OUT/fixtures/$name.jsonl"
    expected="$OUT/expected/$name.jsonl"
    kind=$((i % 3))
    k=$((i / 3))
    kinds[kind]=$((kinds[kind] + 1))
    case $kind in
    0) # lookup_issue: different owners, repos, numbers
        number=$(((i * 7919 + 1) % 100000))
        req=$(printf '%s{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"arguments":{"number":%d,"owner":"org%d","repo":"repo-%d"},"name":"lookup_issue"}}}' \
            "$C" "$number" $((i % 7)) "$i")
        echo "$req" >"$client"
        { echo "$req"; result_text "<REQUEST_ID>" "Issue $number: example"; } >"$expected"
        ;;
    1) # echo: different texts; every other one with two requests in flight
        text=${ECHO_TEXTS[k % ${#ECHO_TEXTS[@]}]}
        text=${text//%d/$i} # not printf: the texts hold JSON escapes
        if ((k % 2 == 0)); then
            req=$(printf '%s{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"arguments":{"text":"%s"},"name":"echo"}}}' "$C" "$text")
            echo "$req" >"$client"
            { echo "$req"; result_text "<REQUEST_ID>" "$text"; } >"$expected"
        else
            req1=$(printf '%s{"jsonrpc":"2.0","id":"<REQUEST_ID:1>","method":"tools/call","params":{"arguments":{"text":"%s"},"name":"echo"}}}' "$C" "$text")
            req2=$(printf '%s{"jsonrpc":"2.0","id":"<REQUEST_ID:2>","method":"tools/call","params":{"arguments":{"text":"second %d"},"name":"echo"}}}' "$C" "$i")
            {
                echo "$req1"
                echo "$req2"
                result_text "<REQUEST_ID:1>" "$text"
                result_text "<REQUEST_ID:2>" "second $i"
            } >"$expected"
            cp "$expected" "$client"
            complete=$((complete + 1))
        fi
        ;;
    2) # count_up: 0..5 steps; placeholder, string and integer progress tokens
        to=$((k % 6))
        token=${TOKENS[k % 3]}
        token=${token//%d/$i}
        req=$(printf '%s{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":%s},"arguments":{"to":%d},"name":"count_up"}}}' "$C" "$token" "$to")
        echo "$req" >"$client"
        {
            echo "$req"
            for ((s = 1; s <= to; s++)); do
                printf '%s{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step %d of %d","progress":%d.0,"progressToken":%s,"total":%d.0}}}\n' \
                    "$S" "$s" "$to" "$s" "$token" "$to"
            done
            printf '%s{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"event":"count_up","to":%d},"level":"info","logger":"demo"}}}\n' "$S" "$to"
            result_text "<REQUEST_ID>" "counted to $to"
        } >"$expected"
        ;;
    esac

    # Contiguous chunks: tests/scale_0.rs holds the first N/FILES tests, and so on.
    file="$OUT/gen/scale_$((i * FILES / N)).rs"
    if ((kind == 2)); then
        # As in tests/demo_fixtures.rs: multi-thread runtime, `?` in a Result body.
        cat >>"$file" <<EOF

#[mcp_fixture("$name")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn $name(transport: Transport) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server = DemoServer::default().serve(transport).await?;
    server.waiting().await?;
    Ok(())
}
EOF
    else
        cat >>"$file" <<EOF

#[mcp_fixture("$name")]
#[tokio::test]
async fn $name(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}
EOF
    fi
done
for ((f = 0; f < FILES; f++)); do
    install_if_changed "$OUT/gen/scale_$f.rs" "$OUT/tests/scale_$f.rs"
done
for old in "$OUT"/tests/scale_*.rs; do # from a run with more files
    n=${old##*/scale_}
    n=${n%.rs}
    [[ $n =~ ^[0-9]+$ ]] && ((n < FILES)) || rm -f "$old"
done
say "generated $N fixtures (lookup_issue ${kinds[0]}, echo ${kinds[1]}, count_up ${kinds[2]}; $((N - complete)) client lines only, $complete complete) and $N tests in $FILES files under $OUT"

# ---------------------------------------------------------------- running
# run LOG CMD...: the command's output goes to logs/LOG; on failure, its tail and exit 1.
run() {
    local log="$OUT/logs/$1"
    shift
    if ! "$@" >"$log" 2>&1; then
        tail -n 60 "$log" >&2
        die "\`$*\` failed (full log: $log)"
    fi
}

# What else a timed cargo command spent its time on: waiting for another cargo on the
# same target dir, or compiling (sources changed while the script ran).
extra() {
    local log="$OUT/logs/$1" notes=()
    if grep -q 'Blocking waiting for file lock' "$log"; then notes+=("waited for the target dir lock"); fi
    if grep -q '^ *Compiling ' "$log"; then notes+=("compiled $(grep -c '^ *Compiling ' "$log") crates"); fi
    if ((${#notes[@]})); then printf ' [%s]' "$(printf '%s; ' "${notes[@]}" | sed 's/; $//')"; fi
}

# Sums "N passed" / "N failed" over the `test result:` lines of a libtest log.
check_libtest() {
    local log="$OUT/logs/$1" passed failed
    passed=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^passed/) s += $i } END { print s + 0 }' "$log")
    failed=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^failed/) s += $i } END { print s + 0 }' "$log")
    [[ $passed == "$N" && $failed == 0 ]] || die "$1: $passed passed, $failed failed, expected $N passed (log: $log)"
}

say "building in $TARGET ..."
t0=$(now)
run build.log cargo test "${manifest[@]}" --no-run
t1=$(now)
build="$(secs "$t0" "$t1") s"
compiled=$(grep -c '^ *Compiling ' "$OUT/logs/build.log" || true)
build+=", $compiled crates compiled"
if grep -q 'Blocking waiting for file lock' "$OUT/logs/build.log"; then build+=" incl. waiting for the target dir lock"; fi

# No new resolution: every package in the generated lock is in the repo's lock, same version.
pkgs() { awk '/^name = / { n = $3 } /^version = / { print n, $3 }' "$1" | sort -u; }
new=$(comm -23 <(pkgs "$OUT/Cargo.lock") <(pkgs "$REPO/Cargo.lock") | grep -v '^"scale-suite" ' || true)
[[ -z $new ]] || die "Cargo.lock gained packages the repo's lock does not have: $new"

say "recording (MCP_FIXTURE_UPDATE=1 cargo test) ..."
t0=$(now)
run record.log env MCP_FIXTURE_UPDATE=1 cargo test "${manifest[@]}"
t1=$(now)
record="$(secs "$t0" "$t1") s$(extra record.log)"
check_libtest record.log
if ! diff -r "$OUT/expected" "$OUT/fixtures" >"$OUT/logs/record.diff"; then
    head -n 40 "$OUT/logs/record.diff" >&2
    die "the recorded fixtures differ from the generated ones (full diff: $OUT/logs/record.diff)"
fi

say "replaying (cargo test) ..."
t0=$(now)
run test.log cargo test "${manifest[@]}"
t1=$(now)
test_time="$(secs "$t0" "$t1") s$(extra test.log)"
check_libtest test.log

if cargo nextest --version >/dev/null 2>&1; then
    say "replaying (cargo nextest run) ..."
    t0=$(now)
    run nextest.log cargo nextest run "${manifest[@]}" --no-fail-fast
    t1=$(now)
    summary=$(grep -E '^ *Summary ' "$OUT/logs/nextest.log" | tail -n1)
    if ! [[ $summary =~ ([0-9]+)\ tests?\ run:\ ([0-9]+)\ passed ]] ||
        [[ ${BASH_REMATCH[1]} != "$N" || ${BASH_REMATCH[2]} != "$N" ]]; then
        die "nextest: expected $N tests run and passed, got: ${summary:-no summary} (log: $OUT/logs/nextest.log)"
    fi
    nextest="nextest $(secs "$t0" "$t1") s$(extra nextest.log)"
else
    say "cargo-nextest is not installed: SKIPPING the nextest run (install: cargo install cargo-nextest --locked)"
    nextest="nextest SKIPPED (not installed)"
fi

# Compare mode never writes.
diff -rq "$OUT/expected" "$OUT/fixtures" >/dev/null || die "a compare run changed a fixture"

# ---------------------------------------------------------------- pending fixtures
# The default update mode (`auto`) and `mcp-replay test`, on the first ten tests (t00*):
# three fixtures drift from what the server answers; under CI a failing test writes
# nothing, outside CI it writes NAME.jsonl.new (what the server now says, byte for byte
# the generated fixture); `mcp-replay test --check` writes nothing and fails; `mcp-replay
# test --accept` passes and leaves the fixtures as generated, nothing pending.
say "pending fixtures (MCP_FIXTURE_UPDATE unset, mcp-replay test) ..."
t0=$(now)
# The command as the workspace's `cargo test` built it (.ci/run runs this script after it);
# built here only when it is not there: `cargo build -p mcp-replay-cli` alone resolves
# other features than the workspace's test build and would compile a second copy.
MCP_REPLAY_BIN="$WORKSPACE_TARGET/debug/mcp-replay"
if [[ ! -x $MCP_REPLAY_BIN ]]; then
    run build-cli.log cargo build --manifest-path "$REPO/Cargo.toml" -p mcp-replay-cli
fi
first=$(printf "t%0${width}d" 0)
filter=${first%?}
drifted=()
for ((i = 0; i < 3 && i < N && i < 10; i++)); do
    name=$(printf "t%0${width}d" "$i")
    sed -i '/server->client/ s/"text":"\([^"]*\)"/"text":"drifted \1"/' "$OUT/fixtures/$name.jsonl"
    drifted+=("$name")
done
pending_count() { find "$OUT/fixtures" -name '*.jsonl.new' | wc -l; }
expect_status() { # want log cmd...
    local want=$1 log="$OUT/logs/$2" got=0
    shift 2
    "$@" >"$log" 2>&1 || got=$?
    if [[ $got != "$want" ]]; then
        tail -n 40 "$log" >&2
        die "\`$*\` exited $got, expected $want (log: $log)"
    fi
}
expect_status 101 pending-ci.log env CI=true cargo test "${manifest[@]}" -- "$filter"
(($(pending_count) == 0)) || die "a failing test under CI wrote a pending file"
expect_status 101 pending-auto.log env -u CI -u TF_BUILD cargo test "${manifest[@]}" -- "$filter"
(($(pending_count) == ${#drifted[@]})) || die "expected ${#drifted[@]} pending files, found $(pending_count)"
for name in "${drifted[@]}"; do
    cmp -s "$OUT/expected/$name.jsonl" "$OUT/fixtures/$name.jsonl.new" ||
        die "$name.jsonl.new is not what the server answers (the generated fixture)"
done
rm -f "$OUT"/fixtures/*.jsonl.new
expect_status 1 pending-check.log "$MCP_REPLAY_BIN" test --check -- "${manifest[@]}" -- "$filter"
(($(pending_count) == 0)) || die "mcp-replay test --check wrote a pending file"
expect_status 0 pending-accept.log "$MCP_REPLAY_BIN" test --accept --fixtures "$OUT/fixtures" -- "${manifest[@]}" -- "$filter"
grep -q "^accepted .*$first.jsonl.new" "$OUT/logs/pending-accept.log" || die "mcp-replay test --accept did not accept $first (log: $OUT/logs/pending-accept.log)"
(($(pending_count) == 0)) || die "pending files left after mcp-replay test --accept"
diff -rq "$OUT/expected" "$OUT/fixtures" >/dev/null || die "the accepted fixtures differ from the generated ones"
expect_status 0 pending-clean.log "$MCP_REPLAY_BIN" test --fixtures "$OUT/fixtures" -- "${manifest[@]}" -- "$filter"
t1=$(now)
pending="pending $(secs "$t0" "$t1") s"

echo "scale-suite: $N tests: record $record, cargo test $test_time, $nextest, $pending (build $build; target $TARGET)"
