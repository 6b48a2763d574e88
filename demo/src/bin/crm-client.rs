//! `crm-client`: an MCP client on rmcp for `peers/python/crm_server.py`, the mirror of the
//! Python and TypeScript SDK clients there (`peers/python/crm_client.py`,
//! `peers/node/crm_client.mjs`): it lists the tools through every page, creates a customer,
//! follows the result's `resource_link`, reads the customer by the id it was given, and asks
//! for the owner's customers by the e-mail address the server returned. It prints what it
//! saw as shapes, never the values, so that its output is the same in every run, live or
//! against `mcp-replay serve`. (rmcp reports progress through a client handler; this client
//! asks for none, so its `progress` is always empty.)
//!
//! ```text
//! crm-client -- <server command> [args...]
//! ```
//!
//! One JSON line a step; exit status 0 on success, 1 on any error (to stderr).

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
    ReadResourceRequestParams,
};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

type Failure = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command: Vec<String> = match args.iter().position(|a| a == "--") {
        Some(at) => args[at + 1..].to_vec(),
        None => args,
    };
    if command.is_empty() {
        eprintln!("usage: crm-client -- <server command> [args...]");
        std::process::exit(2);
    }
    match tokio::time::timeout(Duration::from_secs(30), run(command)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            eprintln!("crm-client: {e}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("crm-client: timed out");
            std::process::exit(1);
        }
    }
}

/// Runs of six or more hex digits as `<N hex>`, the rest kept.
fn shape(value: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    for c in value.chars().chain(std::iter::once('\0')) {
        if matches!(c, '0'..='9' | 'a'..='f') {
            run.push(c);
            continue;
        }
        if run.len() >= 6 {
            out.push_str(&format!("<{} hex>", run.len()));
        } else {
            out.push_str(&run);
        }
        run.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

fn is_email(s: &str) -> bool {
    s.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty() && !domain.contains('@') && domain.rsplit_once('.').is_some()
    })
}

fn call(name: &str, arguments: Value) -> Result<CallToolRequestParams, Failure> {
    Ok(CallToolRequestParams::new(name.to_owned())
        .with_arguments(serde_json::from_value(arguments)?))
}

async fn run(command: Vec<String>) -> Result<(), Failure> {
    let mut child = tokio::process::Command::new(&command[0]);
    child.args(&command[1..]);
    let transport = TokioChildProcess::new(child)?;
    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("mcp-replay-crm-client-rmcp", "1.0.0"),
    );
    let client = config.serve(transport).await?;

    let names: Vec<String> = client
        .list_all_tools()
        .await?
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    println!("{}", json!({"event": "tools", "names": names}));

    let created = client
        .call_tool(call("create_customer", json!({"name": "Ada"}))?)
        .await?;
    let customer = created.structured_content.clone().unwrap_or_default();
    let id = customer["id"].as_str().unwrap_or_default().to_owned();
    let owner = customer["owner"].as_str().unwrap_or_default().to_owned();
    let content = serde_json::to_value(&created.content)?;
    let uri = content
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "resource_link")
        .and_then(|c| c["uri"].as_str())
        .ok_or("no resource_link")?
        .to_owned();
    println!(
        "{}",
        json!({"event": "created", "id": shape(&id), "uri": shape(&uri),
            "uri_names_id": uri.ends_with(&id), "owner_is_email": is_email(&owner),
            "created_at_is_time": customer["createdAt"].as_str().is_some_and(|t| t.len() >= 20 && t.as_bytes()[10] == b'T'),
            "progress": []})
    );

    let read = client
        .read_resource(ReadResourceRequestParams::new(uri.clone()))
        .await?;
    let contents = serde_json::to_value(&read.contents)?;
    let record: Value = serde_json::from_str(contents[0]["text"].as_str().unwrap_or("{}"))?;
    println!(
        "{}",
        json!({"event": "read", "same_id": record["id"] == id.as_str(), "name": record["name"]})
    );

    let got = client
        .call_tool(call("get_customer", json!({"id": id}))?)
        .await?;
    let text = serde_json::to_value(&got.content)?[0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    println!(
        "{}",
        json!({"event": "got", "text_names_owner": text.contains(&owner)})
    );

    let mine = client
        .call_tool(call("customers_by_owner", json!({"owner": owner}))?)
        .await?;
    let ids = mine.structured_content.unwrap_or_default()["customers"].clone();
    println!("{}", json!({"event": "owned", "ids": ids == json!([id])}));
    client.cancel().await?;
    Ok(())
}
