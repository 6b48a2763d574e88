//! mcp-replay (work in progress).
pub use mcp_replay_macros::mcp_fixture;

/// In-process transport (stub; being written).
pub type Transport = tokio::io::DuplexStream;

#[doc(hidden)]
pub mod __private {
    use std::future::Future;

    /// What `#[mcp_fixture]` knows at expansion time.
    pub struct Spec {
        /// `env!("CARGO_MANIFEST_DIR")` of the crate holding the test.
        pub manifest_dir: &'static str,
        /// Fixture folder, relative to `manifest_dir` (default `"fixtures"`).
        pub dir: &'static str,
        /// Fixture name without `.jsonl`; may contain `/`.
        pub name: &'static str,
        /// `concat!(module_path!(), "::", stringify!(fn_name))`.
        pub test_path: &'static str,
        /// `timeout_ms = N`, if given.
        pub timeout_ms: Option<u64>,
    }

    /// The one entry point the attribute expands to.
    pub async fn run<F, Fut, O>(_spec: Spec, _serve: F)
    where
        F: FnOnce(crate::Transport) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
        O: crate::ServeOutput,
    {
        unimplemented!()
    }
}

/// What a serve closure may return: `()` or `Result<(), E: Display>`.
pub trait ServeOutput: Send + 'static {}
impl ServeOutput for () {}
impl<E: std::fmt::Display + Send + 'static> ServeOutput for Result<(), E> {}
