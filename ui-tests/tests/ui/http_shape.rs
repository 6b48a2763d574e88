use mcp_replay::{mcp_fixture, Transport};

#[mcp_fixture("echo", http)]
#[tokio::test]
async fn echo(transport: Transport) {
    drop(transport);
}

fn main() {}
