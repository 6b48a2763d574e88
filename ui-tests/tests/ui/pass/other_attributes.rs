mod tests {
    use mcp_replay::mcp_fixture;

    /// Doc comments, lints and `#[ignore]` stay where they were.
    #[mcp_fixture("lookup_issue")]
    #[allow(clippy::unused_async)]
    #[tokio::test]
    #[ignore = "slow"]
    pub(crate) async fn lookup_issue(_transport: mcp_replay::Transport) {
        #![allow(unused_variables)]
        let unused = ();
    }
}

fn main() {}
