// Pass cases compile as binaries, not under `--test`, so the `#[tokio::test]`
// functions are compiled out after both attributes expanded: these show that
// correct usages expand without errors. `tests/ui.rs` type-checks the same
// usages under `--test`.

#[mcp_replay::mcp_fixture("lookup_issue")]
#[tokio::test]
async fn lookup_issue(transport: mcp_replay::Transport) {
    drop(transport);
}

fn main() {}
