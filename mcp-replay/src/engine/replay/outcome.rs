//! How a server under test ended, as the replay learns it: what a serve closure may return
//! ([`ServeOutput`]) and a failure as a report says it ([`ServerError`]). The session, the
//! shell and the entry points all use these; this module uses none of them.

/// What a serve closure may return: `()`, or `Result<(), E>` where an `Err` is reported
/// as a server failure.
pub trait ServeOutput: Send + 'static {
    /// `Ok` when the server ended normally, else what went wrong.
    fn into_outcome(self) -> Result<(), ServerError>;
}

impl ServeOutput for () {
    fn into_outcome(self) -> Result<(), ServerError> {
        Ok(())
    }
}

impl<E: std::fmt::Debug + Send + 'static> ServeOutput for Result<(), E> {
    fn into_outcome(self) -> Result<(), ServerError> {
        self.map_err(|e| ServerError::new(format!("the serve closure returned an error: {e:?}")))
    }
}

/// How a server under test failed, as a report says it: the serve closure's error, a
/// panic, a task that was cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError(String);

impl ServerError {
    /// A failure described by `description`.
    pub fn new(description: impl Into<String>) -> ServerError {
        ServerError(description.into())
    }

    /// The description.
    pub fn description(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServerError {}
