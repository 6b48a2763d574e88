#!/usr/bin/env bash
# build-cost: what adding mcp-replay as a dev-dependency costs a user's build
# (docs/PERFORMANCE.md, "What a user's build pays").
#
# Makes two copies of a small user crate (scripts/build-cost/: an rmcp server with two
# #[tool]s and a test driving it with rmcp's client over tokio::io::duplex) in a temp folder:
#   A  the crate as it is, without mcp-replay;
#   B  the same plus mcp-replay as a dev-dependency by path (this checkout's mcp-replay/,
#      default features, as the README has a user add it) and a second test,
#      tests/fixture.rs, replaying fixtures/forecast.jsonl with #[mcp_fixture("forecast")].
# Both get this workspace's Cargo.lock (so the same versions resolve, rmcp pinned to the
# lock's version), the default dev profile and no flags, each its own CARGO_TARGET_DIR. For
# each it measures the cold `cargo test --no-run` (wall time, and CPU user+sys, which does not
# depend on how many jobs ran at once), the rebuild after editing one test file (a comment
# appended; median of REBUILDS runs), and the size of the test binaries. Then a table with the
# ratios B/A, and the crates B compiles that A does not, from `cargo test --timings`.
#
# With CRATE=NAME@VERSION the user crate is a published one instead (its source as the Rust
# registry serves it, with the Cargo.lock it ships): A is that crate and its own tests as
# published, B the same plus mcp-replay as a dev-dependency and tests/fixture.rs with its
# fixtures from scripts/build-cost/published/NAME/ (only crates with such a folder). The
# rebuilds edit the crate's first own test (A and B) and the fixture test (B); then B's
# fixture test is recorded (MCP_FIXTURE_UPDATE=1) and replayed 3 times, which must pass.
#
# Usage: scripts/build-cost.sh            about 7 minutes on 2 cores (three cold builds: A, B, and
#                                         A2, A with a second test like its own: the floor)
#        CRATE=rmcp-openapi@0.32.1 scripts/build-cost.sh   a published rmcp server crate
#                                         (about 25 minutes on 2 cores)
#        REBUILDS=5 scripts/build-cost.sh more rebuild runs (default 3)
#        KEEP=1 scripts/build-cost.sh     keep the temp folder (for cargo tree, nm, ...)
#        CARGO_BUILD_JOBS=1 scripts/build-cost.sh   one crate at a time: per-crate times that
#                                         do not overlap (twice the wall time)
# Network: only the Rust registry, and only if ~/.cargo lacks a crate of the lock.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
template="$root/scripts/build-cost"
rebuilds=${REBUILDS:-3}
command -v python3 >/dev/null || { echo "build-cost: needs python3 (the timings report is read with it)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "build-cost: needs /usr/bin/time (GNU time) for the CPU time" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/build-cost.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then
    trap 'echo "build-cost: kept $work" >&2' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

# locked_rmcp LOCKFILE: the version of rmcp it locks.
locked_rmcp() { awk '$0 == "name = \"rmcp\"" { getline; gsub(/version = |"/, ""); print; exit }' "$1"; }

crate=${CRATE:-}
if [ -z "$crate" ]; then
    # rmcp's version in this workspace's lock: the user crate pins it (=X.Y.Z).
    rmcp_version=$(locked_rmcp "$root/Cargo.lock")
    [ -n "$rmcp_version" ] || { echo "build-cost: no rmcp in $root/Cargo.lock" >&2; exit 2; }
    # make_copy NAME DEV_DEPENDENCY_LINE: the user crate in $work/NAME.
    make_copy() {
        local dir="$work/$1"
        mkdir -p "$dir/tests"
        cp -r "$template/src" "$dir/"
        cp "$template/tests/client.rs" "$dir/tests/"
        sed -e "s|@RMCP_VERSION@|$rmcp_version|g" -e "s|@MCP_REPLAY_DEV_DEPENDENCY@|$2|" \
            "$template/Cargo.toml.in" >"$dir/Cargo.toml"
        # The workspace's lock: cargo drops what this crate does not use and keeps the rest.
        cp "$root/Cargo.lock" "$dir/"
    }
    make_copy A ""
    make_copy B "mcp-replay = { path = \"$root/mcp-replay\" }"
    # The floor: A plus a second test of the same kind, without mcp-replay. Any second test
    # file is a crate of its own that instantiates rmcp's service for the server again, so
    # what B adds beyond this copy is what mcp-replay itself costs.
    make_copy A2 ""
    sed 's/fn forecast_over_a_pipe/fn forecast_over_a_pipe_again/' \
        "$template/tests/client.rs" >"$work/A2/tests/client_again.rs"
    cp "$template/tests/fixture.rs" "$work/B/tests/"
    cp -r "$template/fixtures" "$work/B/"
    own_test=client
    what="rmcp $rmcp_version; A = rmcp server + a client test"
else
    name=${crate%@*} version=${crate#*@}
    published="$template/published/$name"
    [ "$name" != "$crate" ] && [ -d "$published" ] \
        || { echo "build-cost: CRATE=NAME@VERSION with a folder scripts/build-cost/published/NAME (got '$crate')" >&2; exit 2; }
    # The published source: cargo fetches it into its registry for a throwaway crate.
    cargo new --quiet --lib --name build-cost-fetch "$work/fetch"
    echo "$name = \"=$version\"" >>"$work/fetch/Cargo.toml"
    (cd "$work/fetch" && cargo fetch --quiet) || { echo "build-cost: cannot fetch $crate" >&2; exit 2; }
    source=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$name-$version" | head -n 1)
    for copy in A B; do
        cp -r "$source" "$work/$copy"
        chmod -R u+w "$work/$copy"
        rm -f "$work/$copy/.cargo-ok" "$work/$copy/.cargo_vcs_info.json"
    done
    [ -f "$work/A/Cargo.lock" ] || { echo "build-cost: $crate ships no Cargo.lock" >&2; exit 2; }
    cat >>"$work/B/Cargo.toml" <<TOML

[dev-dependencies.mcp-replay]
path = "$root/mcp-replay"

[[test]]
name = "fixture"
path = "tests/fixture.rs"
TOML
    cp "$published/fixture.rs" "$work/B/tests/"
    cp -r "$published/fixtures" "$work/B/"
    # The crate's first own test (by name) is the one a user edits.
    own_test=$(sed -n 's/^path = "tests\/\(.*\)\.rs"$/\1/p' "$work/A/Cargo.toml" | sort | head -n 1)
    [ -n "$own_test" ] || { echo "build-cost: $crate declares no test" >&2; exit 2; }
    rmcp_version=$(locked_rmcp "$work/A/Cargo.lock")
    what="$crate (rmcp $rmcp_version, its own Cargo.lock); A = the crate and its tests as published"
fi

# seconds_of FILE: the wall time GNU time wrote (-f '%e %U %S').
wall_of() { awk '{ print $1 }' "$1"; }
cpu_of() { awk '{ printf "%.2f\n", $2 + $3 }' "$1"; }

# measure NAME EDITED_TEST...: cold build, then REBUILDS edits of each EDITED_TEST.
measure() {
    local name=$1 dir="$work/$1" target="$work/target-$1"
    shift
    (cd "$dir" && cargo fetch --quiet)   # downloads are not build time
    echo "build-cost: $name: cold cargo test --no-run ..." >&2
    (cd "$dir" && CARGO_TARGET_DIR="$target" /usr/bin/time -f '%e %U %S' -o "$work/$name.cold" \
        cargo test --no-run --timings --quiet 2>"$work/$name.cold.log") \
        || { cat "$work/$name.cold.log" >&2; exit 1; }
    local test
    for test in "$@"; do
        echo "build-cost: $name: $rebuilds rebuilds after editing tests/$test.rs ..." >&2
        cp "$dir/tests/$test.rs" "$work/$test.rs.orig"
        for i in $(seq "$rebuilds"); do
            echo "// edit $i" >>"$dir/tests/$test.rs"
            (cd "$dir" && CARGO_TARGET_DIR="$target" /usr/bin/time -f '%e %U %S' -o "$work/$name.t" \
                cargo test --no-run --quiet 2>/dev/null)
            wall_of "$work/$name.t" >>"$work/$name.$test.rebuilds"
            cpu_of "$work/$name.t" >>"$work/$name.$test.rebuilds-cpu"
        done
        cp "$work/$test.rs.orig" "$dir/tests/$test.rs"
    done
    # The test binaries (executables directly under deps/, not the proc-macro libraries).
    find "$target/debug/deps" -maxdepth 1 -type f -executable ! -name '*.so' \
        -printf '%s %f\n' | sort -n >"$work/$name.binaries"
    cp "$target/cargo-timings/cargo-timing.html" "$work/$name.timings.html"
    # Check that the lock held: the same rmcp as A's (the workspace's, or the crate's).
    [ "$(locked_rmcp "$dir/Cargo.lock")" = "$rmcp_version" ] \
        || { echo "build-cost: $name resolved another rmcp than $rmcp_version" >&2; exit 1; }
}
measure A "$own_test"
measure B "$own_test" fixture
[ -z "$crate" ] && measure A2   # cold only

if [ -n "$crate" ]; then
    # The fixture test is real: recorded once against the crate's server, then replayed.
    echo "build-cost: B: the fixture test, recorded then replayed 3 times ..." >&2
    (cd "$work/B" && CARGO_TARGET_DIR="$work/target-B" MCP_FIXTURE_UPDATE=1 \
        cargo test --quiet --test fixture >"$work/record.log" 2>&1) \
        || { cat "$work/record.log" >&2; echo "build-cost: recording the fixture failed" >&2; exit 1; }
    for i in 1 2 3; do
        (cd "$work/B" && CARGO_TARGET_DIR="$work/target-B" \
            cargo test --quiet --test fixture >"$work/replay.log" 2>&1) \
            || { cat "$work/replay.log" >&2; echo "build-cost: replay $i failed" >&2; exit 1; }
    done
    echo "build-cost: the fixture test passed 3 of 3 (fixtures/: $(cat "$work"/B/fixtures/*.jsonl | wc -l) lines recorded)" >&2
fi

python3 - "$work" "$rebuilds" "$what" "$own_test" <<'PY'
import json, re, statistics, subprocess, sys
work, rebuilds, what, own = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

def read(path):
    with open(f"{work}/{path}") as f:
        return f.read()

def times(name):
    wall, user, sys_ = map(float, read(f"{name}.cold").split())
    return wall, user + sys_

def rebuild(name, test, what=""):
    return statistics.median(float(x) for x in read(f"{name}.{test}.rebuilds{what}").split())

def binaries(name):
    rows = [line.split(" ", 1) for line in read(f"{name}.binaries").splitlines()]
    return [(int(size), file) for size, file in rows]

def non_debug(name, file):
    # Everything but the .debug_* sections (size -A: section, size, address).
    out = subprocess.run(["size", "-A", f"{work}/target-{name}/debug/deps/{file}"],
                         capture_output=True, text=True, check=True).stdout
    total = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            if not parts[0].startswith(".debug"):
                total += int(parts[1])
    return total

def units(name):
    html = read(f"{name}.timings.html")
    data = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)
    return json.loads(data.group(1))

def key(u):
    return (u["name"], u["version"], u["target"].strip(), tuple(u.get("features") or ()))

a_wall, a_cpu = times("A")
b_wall, b_cpu = times("B")
a_units, b_units = units("A"), units("B")
a_sum = sum(u["duration"] for u in a_units)
b_sum = sum(u["duration"] for u in b_units)
a_bins, b_bins = binaries("A"), binaries("B")
a_big, b_big = max(a_bins), max(b_bins)
b_fixture = next(((s, f) for s, f in b_bins if f.startswith("fixture-")), b_big)

MB = 1e6
rows = [
    ("cold `cargo test --no-run`, wall (s)", a_wall, b_wall),
    ("cold, CPU user+sys (s)", a_cpu, b_cpu),
    ("cold, units compiled", len(a_units), len(b_units)),
    ("cold, summed unit time (s)", a_sum, b_sum),
    (f"rebuild after editing tests/{own}.rs, median of {rebuilds} (s)",
     rebuild("A", own), rebuild("B", own)),
    (f"rebuild after editing the fixture test, median of {rebuilds} (s)",
     rebuild("A", own), rebuild("B", "fixture")),
    ("  the same, CPU user+sys (s)", rebuild("A", own, "-cpu"),
     rebuild("B", "fixture", "-cpu")),
    ("largest test binary (MB)", a_big[0] / MB, b_fixture[0] / MB),
    ("  of which not debuginfo (MB)", non_debug("A", a_big[1]) / MB,
     non_debug("B", b_fixture[1]) / MB),
    ("all test binaries (MB)", sum(s for s, _ in a_bins) / MB, sum(s for s, _ in b_bins) / MB),
]
print(f"\nbuild-cost: {what}, B = A + mcp-replay (dev-dependency) + a #[mcp_fixture] test")
print(f"| {'measure':<58} | {'A':>8} | {'B':>8} | {'B/A':>5} |")
print(f"|{'-' * 60}|{'-' * 10}|{'-' * 10}|{'-' * 7}|")
for label, a, b in rows:
    fmt = (lambda v: f"{v:8d}") if isinstance(a, int) else (lambda v: f"{v:8.2f}")
    print(f"| {label:<58} | {fmt(a)} | {fmt(b)} | {b / a:5.2f} |")
try:
    a2_wall, a2_cpu = times("A2")
    print(f"| {'cold CPU, A2 = A + a second test like its own (s)':<58} | {a2_cpu:8.2f} | {b_cpu:8.2f} | {b_cpu / a2_cpu:5.2f} |")
    print(f"(A2/A = {a2_cpu / a_cpu:.2f}: what a second test file costs without mcp-replay; B/A2 is mcp-replay's own part)")
except FileNotFoundError:
    pass
print(f"\nA's largest test binary: {a_big[1]}; B's fixture test: {b_fixture[1]}")
print(f"(the fixture test's rebuild is compared with A's tests/{own}.rs: the one file a user edits)")

a_keys = {key(u) for u in a_units}
extra = [u for u in b_units if key(u) not in a_keys]
extra.sort(key=lambda u: -u["duration"])
print(f"\nUnits B compiles that A does not ({sum(u['duration'] for u in extra):.1f} s summed; wall time of"
      " each, which grows with what ran beside it: CARGO_BUILD_JOBS=1 for times that do not overlap):")
for u in extra:
    print(f"  {u['duration']:7.2f} s  {u['name']} {u['version']} {u['target'].strip() or 'lib'}")
both = {key(u): u for u in a_units}
changed = [(u, both[key(u)]) for u in b_units if key(u) in both]
changed.sort(key=lambda p: -(p[0]["duration"] - p[1]["duration"]))
print("Units in both, most slower in B (A -> B; the machine's noise is in these too):")
for b, a in changed[:5]:
    print(f"  {a['duration']:7.2f} -> {b['duration']:7.2f} s  {b['name']} {b['target'].strip() or 'lib'}")
PY
