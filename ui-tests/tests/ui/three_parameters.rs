use mcp_replay::mcp_fixture;

#[mcp_fixture("lookup_issue")]
#[tokio::test]
async fn lookup_issue(server: mcp_replay::Transport, client: mcp_replay::Transport, retries: u32) {
    drop((server, client, retries));
}

fn main() {}
