#[mcp_replay::mcp_fixture("lookup_issue")]
#[tokio::test]
async fn lookup_issue(transport: mcp_replay::Transport) -> Result<(), String> {
    drop(transport);
    let _port: u16 = "8080".parse().map_err(|_| "not a port")?;
    Ok(())
}

fn main() {}
