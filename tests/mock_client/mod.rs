//! What the tests of a client against a fixture's mock share: the mock's Streamable HTTP
//! front on a Unix socket, rmcp's HTTP client on it, and a client that keeps the progress
//! it is given.
#![allow(dead_code)] // Each test file uses its own part.

/// `front` served over HTTP/1.1 on a Unix socket at `path` (each connection its own task).
pub fn serve_on_unix_socket(front: mcp_replay::_support::front::Front, path: &std::path::Path) {
    let listener = tokio::net::UnixListener::bind(path).unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let front = front.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let front = front.clone();
                    async move { Ok::<_, std::convert::Infallible>(front.handle(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}

/// rmcp's Streamable HTTP client transport over a Unix socket.
pub type RmcpHttp =
    rmcp::transport::StreamableHttpClientTransport<rmcp::transport::UnixSocketHttpClient>;

/// rmcp's Streamable HTTP client transport, through the Unix socket at `path`.
pub fn rmcp_http_client(path: &std::path::Path) -> RmcpHttp {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let uri = "http://localhost/mcp";
    let client = rmcp::transport::UnixSocketHttpClient::new(path.to_str().unwrap(), uri);
    rmcp::transport::StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(uri),
    )
}

/// A fresh socket path in the temp folder for `name`.
pub fn socket_path(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("mcp-replay-{name}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// A client that keeps the progress messages it is given.
#[derive(Clone, Default)]
pub struct Progress(pub std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl rmcp::ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

/// Calls `count_up` (to 3) on `client`, whose handler is `seen`, as a fault reorders its
/// progress after its result, and checks what rmcp's client does with that: the result
/// first, no progress before it, the three messages after it (within `wait`), and the
/// mock's `report` naming the fault. Cancels the client; gives back the report.
pub async fn reordered_progress_reaches_the_handler(
    client: rmcp::service::RunningService<rmcp::RoleClient, Progress>,
    seen: &Progress,
    wait: std::time::Duration,
    report: impl std::future::Future<Output = mcp_replay::Report>,
) {
    let arguments = serde_json::json!({"to": 3}).as_object().unwrap().clone();
    let call = rmcp::model::CallToolRequestParams::new("count_up").with_arguments(arguments);
    let result = client.peer().call_tool(call).await.unwrap();
    let before = seen.0.lock().unwrap().len();
    tokio::time::sleep(wait).await;
    let after = seen.0.lock().unwrap().clone();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), client.cancel()).await;
    let report = report.await;
    assert_eq!(result.is_error, None, "{result:?}");
    assert_eq!(before, 0, "no progress came before the result");
    assert_eq!(
        after,
        ["step 1 of 3", "step 2 of 3", "step 3 of 3"],
        "{report}"
    );
    let said = "the notifications before the answer sent after it";
    assert!(report.notes().iter().any(|n| n.contains(said)), "{report}");
}
