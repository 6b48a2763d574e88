//! `tower-parts-server [--next]`: an inventory server on tower-mcp over stdio.
//! `add_part(name)` answers `added NAME`; with `--next` (the next release) `add_part`
//! requires `volume` too, so a recorded call without it is refused in tower-mcp's words
//! (`Invalid input: missing field `volume``).

use tower_mcp::schemars::JsonSchema;
use tower_mcp::{CallToolResult, McpRouter, StdioTransport, ToolBuilder};

/// The first release's arguments.
#[derive(serde::Deserialize, JsonSchema)]
#[schemars(crate = "tower_mcp::schemars")]
struct AddPart {
    name: String,
}

/// The next release's: `volume` required.
#[derive(serde::Deserialize, JsonSchema)]
#[schemars(crate = "tower_mcp::schemars")]
struct AddPartWithVolume {
    name: String,
    volume: u32,
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let next = std::env::args().any(|a| a == "--next");
    let tool = if next {
        ToolBuilder::new("add_part")
            .description("Add a part to the inventory.")
            .handler(|input: AddPartWithVolume| async move {
                Ok(CallToolResult::text(format!("added {} ({} l)", input.name, input.volume)))
            })
            .build()
    } else {
        ToolBuilder::new("add_part")
            .description("Add a part to the inventory.")
            .handler(|input: AddPart| async move {
                Ok(CallToolResult::text(format!("added {}", input.name)))
            })
            .build()
    };
    let router = McpRouter::new().server_info("parts", "1.0.0").tool(tool);
    if let Err(e) = StdioTransport::new(router).run().await {
        eprintln!("tower-parts-server: {e}");
        std::process::exit(1);
    }
}
