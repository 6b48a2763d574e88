use mcp_replay::mcp_fixture;

#[mcp_fixture(lookup_issue)]
#[tokio::test]
async fn lookup_issue(transport: mcp_replay::Transport) {
    drop(transport);
}

fn main() {}
