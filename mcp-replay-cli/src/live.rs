//! A fixture replayed against a server the command starts as a child process on stdio:
//! what `replay` and `coverage` share.

use crate::args::ServerArg;
use mcp_replay::process::{self, serve_command};
use mcp_replay::{Fixture, Options, Report, Rules};
use std::sync::{Arc, Mutex};

/// How the server under test ended, in the report's words: its own message (`the server
/// "false" exited with status 1`), not the Debug form a `Result<(), io::Error>` gives.
struct ServerEnded(Result<(), String>);

impl mcp_replay::ServeOutput for ServerEnded {
    fn into_outcome(self) -> Result<(), mcp_replay::ServerError> {
        self.0.map_err(mcp_replay::ServerError::new)
    }
}

/// Replays `fixture` against `server` started as a child process on stdio. When it could
/// not be started, `not_started` receives the message the command ends with (as `call` and
/// `record` say it).
pub(crate) async fn replay_child(
    fixture: &Fixture,
    rules: &Rules,
    options: &Options,
    server: &ServerArg,
    not_started: &Arc<Mutex<Option<String>>>,
) -> Report {
    let mut command = server.command();
    let line = server.line();
    let slot = Arc::clone(not_started);
    fixture
        .replay_with_options(rules, options, move |transport| async move {
            let ended = serve_command(transport, &mut command).await;
            ServerEnded(ended.map_err(|e| match process::start_error(&e) {
                Some(start) => {
                    let message = format!(
                        "could not start the server `{line}`: {}",
                        start.spawn_error()
                    );
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(message.clone());
                    message
                }
                None => e.to_string(),
            }))
        })
        .await
}
