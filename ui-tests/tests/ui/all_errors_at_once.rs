use mcp_replay::mcp_fixture;

#[mcp_fixture("../lookup_issue.jsonl", timeout = 5, timeout_ms = 0)]
#[tokio::test]
fn lookup_issue() {}

fn main() {}
