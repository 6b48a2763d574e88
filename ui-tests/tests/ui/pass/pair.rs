// A body that is the client: two transports, the server's and the client's.

#[mcp_replay::mcp_fixture("lookup_issue")]
#[tokio::test]
async fn lookup_issue(server: mcp_replay::Transport, client: mcp_replay::Transport) {
    drop((server, client));
}

fn main() {}
