#[mcp_replay::mcp_fixture("lookup_issue")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_issue(transport: mcp_replay::Transport) {
    drop(transport);
}

fn main() {}
