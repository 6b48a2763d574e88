//! Empty: the trybuild cases of `#[mcp_fixture]` are under `tests/`.
