#!/usr/bin/env bash
# html-screenshot: the picture of a session (`replay --html`) in a real browser.
#
#   scripts/html-screenshot.sh            # writes docs/images/replay-html-{pass,fail}.png
#   scripts/html-screenshot.sh OUT_DIR    # the same pictures in OUT_DIR
#
# Replays the demo's count_up fixture against the demo server twice with `--html`: as it
# is (it passes), and drifted (a progress message and the result the server no longer
# sends, and a log it never sends: it fails, after waiting 300 ms for the log). Then
# Debian's headless Chromium renders both pages to PNG (the failing one with its first
# finding's row opened by the page's own script) and dumps the DOM it made of them, which
# is checked: every row of the page is there, the findings are marked, the row the link
# names is open, and the PNGs are PNGs of the size asked. Needs chromium
# (apt-get install chromium); without it the script fails and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/images}
mkdir -p "$out"
out=$(realpath "$out")
chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chromium ]]; then
    echo "html-screenshot.sh: chromium is needed: apt-get install chromium (Debian's package)" >&2
    exit 2
fi
target=$(realpath "${CARGO_TARGET_DIR:-target}")
echo "== build" >&2
cargo build -p mcp-replay-cli --bin mcp-replay -p mcp-replay-tests --bin demo-server >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The fixtures: the bundled one, and the drifted copy (replayed from $work, so that the
# pages name them fixtures/NAME.jsonl).
mkdir "$work/fixtures"
cp fixtures/count_up_progress.jsonl "$work/fixtures/count_up.jsonl"
sed -e 's/step 2 of 3/step two of three/' -e 's/counted to 3/counted to three/' \
    fixtures/count_up_progress.jsonl |
    awk 'NR == 6 { print "{\"direction\":\"server->client\",\"message\":{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":{\"event\":\"count_up\",\"done\":true},\"level\":\"debug\",\"logger\":\"demo\"}}}" } { print }' \
        >"$work/fixtures/count_up_drifted.jsonl"

replay() { # FIXTURE PAGE EXPECTED_STATUS
    local status=0
    (cd "$work" && "$target/debug/mcp-replay" replay --timeout 300ms --html "$2" "$1" \
        -- "$target/debug/demo-server") >"$work/replay.out" 2>&1 || status=$?
    if [[ $status != "$3" ]]; then
        cat "$work/replay.out" >&2
        echo "html-screenshot.sh: replay of $1 exited $status, not $3" >&2
        exit 1
    fi
}
echo "== replay" >&2
replay fixtures/count_up.jsonl "$work/pass.html" 0
replay fixtures/count_up_drifted.jsonl "$work/fail.html" 1

browse() { # ARGS... (the browser's noise on stderr kept in a log)
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --disable-extensions "$@" 2>>"$work/chromium.log"
}
# The first finding's row, opened where the page stands (`#open:ROW` does not scroll).
first=$(grep -o 'href="#r[0-9]*"' "$work/fail.html" | head -1 | sed 's/href="#\(r[0-9]*\)"/\1/')
[[ -n $first ]] || { echo "html-screenshot.sh: the failing page links no row" >&2; exit 1; }

echo "== chromium: $("$chromium" --version 2>/dev/null)" >&2
browse --window-size=1400,720 --screenshot="$out/replay-html-pass.png" "file://$work/pass.html"
browse --window-size=1400,1250 --screenshot="$out/replay-html-fail.png" "file://$work/fail.html#open:$first"

# How many times PATTERN is in FILE (0 is no failure).
count() { grep -o "$1" "$2" | wc -l || true; }
# What the browser made of the pages, after their script ran.
check() { # PAGE HASH ROWS_WITH_FINDINGS
    local dom=$work/dom.html
    browse --dump-dom "file://$1$2" >"$dom"
    local rows written
    rows=$(count '<details class="row' "$dom")
    written=$(count '<details class="row' "$1")
    [[ $rows -gt 0 && $rows == "$written" ]] ||
        { echo "html-screenshot.sh: $1: the browser has $rows rows, the page $written" >&2; exit 1; }
    local bad
    bad=$(count '<details class="row[a-z ]* bad' "$dom")
    [[ $bad == "$3" ]] ||
        { echo "html-screenshot.sh: $1: $bad rows with findings, not $3" >&2; exit 1; }
    if [[ -n $2 ]]; then
        grep -q "id=\"${2#\#open:}\" open=\"\"" "$dom" ||
            { echo "html-screenshot.sh: $1: the row $2 names is not open" >&2; exit 1; }
    fi
    echo "$1: $rows rows, $bad with findings" >&2
}
check "$work/pass.html" "" 0
check "$work/fail.html" "#open:$first" 3

for png in "$out/replay-html-pass.png" "$out/replay-html-fail.png"; do
    python3 - "$png" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{sys.argv[1]}: not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert width == 1400 and height >= 700, f"{sys.argv[1]}: {width}x{height}"
assert len(data) > 20_000, f"{sys.argv[1]}: {len(data)} bytes, a blank page?"
print(f"{sys.argv[1]}: {width}x{height}, {len(data)} bytes", file=sys.stderr)
PY
done
