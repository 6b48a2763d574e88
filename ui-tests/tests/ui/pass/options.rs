#[mcp_replay::mcp_fixture("issues/lookup_issue", dir = "tests/fixtures", timeout_ms = 500, protocol_check = "warn")]
#[tokio::test]
async fn lookup_issue(mut transport: mcp_replay::Transport) {
    let _ = &mut transport;
}

fn main() {}
