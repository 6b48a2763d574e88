//! The server driven by rmcp's client over an in-memory pipe (copies A and B).

use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::json;

#[tokio::test]
async fn forecast_over_a_pipe() {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        let server = weather::Weather::default().serve(server_io).await.unwrap();
        let _ = server.waiting().await;
    });
    let client = ().serve(client_io).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 2);
    let arguments = json!({"city": "Paris", "days": 3});
    let result = client
        .call_tool(
            CallToolRequestParams::new("forecast")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].clone();
    assert_eq!(text, "Paris: sunny for 3 days");
    client.cancel().await.unwrap();
    server.await.unwrap();
}
