#!/usr/bin/env bash
# Measures what the personal data rules find (docs/normalization.md, "Personal data"):
# in the real mcporter recordings (imported with every category off, so that `check`
# sees the values as they were), in sessions with server-everything and server-filesystem
# (when the peers are installed: bash peers/install.sh) and in the repository's own
# fixtures, and a session with mcp-server-git. Prints every
# finding (fixture, line, path, category: never the value) and the counts; a finding on
# a protocol field (a version, an id, a URI of the protocol, a base64 payload) is a false
# positive, and the goal is none.
#
#   scripts/personal-survey.sh [RECORDINGS_DIR]   (default ../shared/recordings)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
recordings="${1:-$root/../shared/recordings}"
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build -q -p mcp-replay-cli --bin mcp-replay
bin="$target/debug/mcp-replay"
work="$(mktemp -d)"
[ -n "${KEEP:-}" ] && echo "keeping $work" >&2 || trap 'rm -rf "$work"' EXIT

# Every category off: the import keeps the values as they were recorded.
echo '{"without": ["email", "phone", "ipv4", "ipv6", "payment-card", "iban"]}' >"$work/off.json"
n=0
while IFS= read -r -d '' recording; do
    n=$((n + 1))
    out="$work/recordings/$n-$(basename "$recording" .ndjson)"
    mkdir -p "$out"
    "$bin" import "$recording" -o "$out" --rules "$work/off.json" >/dev/null 2>&1 || true
done < <(find "$recordings" -name '*.ndjson' -print0 | sort -z)

# Sessions with the peers' servers (bash peers/install.sh), recorded with every category
# off (the output folder's rules file), when they are installed.
modules="$root/peers/node/node_modules/@modelcontextprotocol"
if [ -e "$modules/server-everything/package.json" ]; then
    mkdir -p "$work/sessions/fs"
    cp "$work/off.json" "$work/sessions/mcp-replay.rules.json"
    cp "$root/README.md" "$root/docs/normalization.md" "$work/sessions/fs/"
    everything="$modules/server-everything/dist/index.js"
    filesystem="$modules/server-filesystem/dist/index.js"
    "$bin" call -o "$work/sessions/everything.jsonl" --list-tools --list-resources \
        --list-prompts --list-resource-templates --tool echo message=hello \
        --tool get-sum a:=1 b:=2 --prompt simple-prompt --resource demo://resource/static/document/architecture.md \
        --timeout 30s -- node "$everything" stdio >/dev/null 2>&1 || true
    "$bin" call -o "$work/sessions/filesystem.jsonl" --list-tools \
        --tool list_directory path="$work/sessions/fs" \
        --tool read_text_file path="$work/sessions/fs/README.md" \
        --tool get_file_info path="$work/sessions/fs/normalization.md" \
        --tool list_allowed_directories \
        --timeout 30s -- node "$filesystem" "$work/sessions/fs" >/dev/null 2>&1 || true
fi

# A session with mcp-server-git (from the Python package index, into a virtual environment
# of the work folder; skipped when it cannot be installed) on a repository of two commits:
# its status, log, a diff and a commit shown, hashes, dates and branch names among them.
if python3 -m venv "$work/git-venv" >/dev/null 2>&1 &&
    "$work/git-venv/bin/pip" install -q --disable-pip-version-check mcp-server-git >/dev/null 2>&1; then
    repo="$work/sessions/repo"
    mkdir -p "$repo"
    cp "$work/off.json" "$work/sessions/mcp-replay.rules.json"
    git -C "$repo" init -q -b main
    cp "$root/README.md" "$repo/"
    git -C "$repo" add README.md
    git -C "$repo" -c user.name=Survey -c user.email=survey@example.com commit -q -m "First commit"
    echo "more" >>"$repo/README.md"
    git -C "$repo" -c user.name=Survey -c user.email=survey@example.com commit -q -am "Second commit"
    echo "changed" >>"$repo/README.md"
    "$bin" call -o "$work/sessions/git.jsonl" --list-tools \
        --tool git_status repo_path="$repo" \
        --tool git_log repo_path="$repo" \
        --tool git_diff_unstaged repo_path="$repo" \
        --tool git_show repo_path="$repo" revision=HEAD \
        --tool git_branch repo_path="$repo" branch_type=local \
        --timeout 30s -- "$work/git-venv/bin/mcp-server-git" >/dev/null 2>&1 || true
else
    echo "personal-survey: mcp-server-git could not be installed: no git session" >&2
fi

count() { # LABEL PATH...: the personal findings of `check` over the paths
    local label="$1"
    shift
    "$bin" check --format json "$@" 2>/dev/null | python3 -c '
import json, sys
label = sys.argv[1]
doc = json.load(sys.stdin)
hits = [(f["fixture"], x["summary"].split(": personal: ")[1].split(" holds")[0], x["summary"].rsplit("(", 2)[1].split(")")[0])
        for f in doc["fixtures"] for x in f["findings"] if x["kind"] == "personal"]
for fixture, path, category in hits:
    print(f"  {label}: {fixture}: {path} ({category})")
checked = doc["checked"]
print(f"{label}: {len(hits)} findings in {checked} fixtures")
' "$label" || true
}

if [ -d "$work/recordings" ]; then
    count recordings "$work/recordings"
fi
if ls "$work"/sessions/*.jsonl >/dev/null 2>&1; then
    count sessions "$work"/sessions/*.jsonl
fi
mapfile -t fixtures < <(cd "$root" && find . -name '*.jsonl' -not -path './target/*' -not -path '*/target/*' | sort)
(cd "$root" && count repository "${fixtures[@]}")
