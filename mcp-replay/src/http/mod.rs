//! MCP over Streamable HTTP (cargo feature `http`, off by default).
//!
//! The replay engine speaks newline-delimited JSON-RPC over an in-process pipe; a
//! fixture is about MCP messages, not transports. [`bridge`] connects that pipe to an
//! HTTP service (any tower `Service<http::Request<_>>`, e.g. rmcp's
//! `StreamableHttpService`), so the same engine and fixtures replay over Streamable HTTP;
//! [`sse`] parses the Server-Sent Events streams the service answers with.
//!
//! This is the first step: the bridge and the parser. The replay does not use them yet.

pub mod bridge;
pub mod sse;
