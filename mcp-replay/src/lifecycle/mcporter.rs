//! Importing mcporter recordings: NDJSON lines of JSON-RPC messages with an added
//! `_meta: {dir: send|recv|lifecycle, server, ts}`.

use crate::data::fixture::{Direction, Fixture};
use crate::error::Error;
use crate::lifecycle::record::fixture_from_exchange;
use crate::rules::Rules;
use serde_json::Value;

/// One server's traffic from an mcporter recording, in recorded order.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTraffic {
    /// The server name mcporter recorded (`_meta.server`).
    pub server: String,
    /// The messages, `_meta` removed: `send` is client->server, `recv` server->client.
    pub messages: Vec<(Direction, Value)>,
}

/// Splits an mcporter recording by server, in order of first appearance. Lifecycle lines
/// (`$transport/start`, `$transport/close`) are dropped. Errors name the line and column.
pub fn parse(text: &str, source: &str) -> Result<Vec<ServerTraffic>, Error> {
    let mut servers: Vec<ServerTraffic> = Vec::new();
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        let err = |column: usize, message: String| Error::Parse {
            file: source.to_owned(),
            line: index + 1,
            column,
            message,
        };
        let mut value: Value = serde_json::from_str(line)
            .map_err(|e| err(e.column().max(1), format!("not valid JSON: {e}")))?;
        let Some(obj) = value.as_object_mut() else {
            return Err(err(1, "an mcporter line is a JSON object".into()));
        };
        let Some(Value::Object(meta)) = obj.remove("_meta") else {
            return Err(err(
                1,
                "no \"_meta\" object: this does not look like an mcporter recording \
                 (each line has _meta: {dir, server, ts})"
                    .into(),
            ));
        };
        let direction = match meta.get("dir").and_then(Value::as_str) {
            Some("send") => Direction::ClientToServer,
            Some("recv") => Direction::ServerToClient,
            Some("lifecycle") => continue,
            other => {
                return Err(err(
                    1,
                    format!("_meta.dir must be send, recv or lifecycle, not {other:?}"),
                ))
            }
        };
        let server = meta
            .get("server")
            .and_then(Value::as_str)
            .unwrap_or("default")
            .to_owned();
        crate::data::fixture::MessageKind::of(&value).map_err(|m| err(1, m.into()))?;
        match servers.iter_mut().find(|s| s.server == server) {
            Some(traffic) => traffic.messages.push((direction, value)),
            None => servers.push(ServerTraffic {
                server,
                messages: vec![(direction, value)],
            }),
        }
    }
    Ok(servers)
}

/// Imports an mcporter recording as one fixture per server (optionally only `server`):
/// ids and progress tokens become labels and every message is normalized by `rules`.
/// Secrets are checked when the fixtures are written.
pub fn import(
    text: &str,
    source: &str,
    server: Option<&str>,
    rules: &Rules,
) -> Result<Vec<(String, Fixture)>, Error> {
    let traffic = parse(text, source)?;
    let known: Vec<String> = traffic.iter().map(|t| t.server.clone()).collect();
    let mut out = Vec::new();
    for t in traffic {
        if server.is_some_and(|s| s != t.server) {
            continue;
        }
        let fixture =
            fixture_from_exchange(t.messages, rules, &format!("{source} ({})", t.server))?;
        out.push((t.server, fixture));
    }
    if out.is_empty() {
        return Err(Error::Import {
            file: source.to_owned(),
            message: match server {
                Some(s) => format!(
                    "no traffic of server {s:?}; the recording has: {}",
                    known.join(", ")
                ),
                None => "the recording holds no messages".into(),
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn name_the_line_of_a_bad_recording() {
        let err = parse("{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n", "r").unwrap_err();
        assert!(
            err.to_string().starts_with("r:1:1: no \"_meta\" object"),
            "{err}"
        );
        let err = parse(
            "\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"_meta\":{\"dir\":\"up\"}}",
            "r",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("r:2:1: _meta.dir must be send, recv or lifecycle"),
            "{err}"
        );
    }
}
