//! A small weather MCP server: two tools, made with rmcp's macros.

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler,
};
use serde::Deserialize;

/// Arguments of `forecast`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ForecastArgs {
    /// The city, e.g. "Paris".
    pub city: String,
    /// How many days ahead, 1 to 7.
    pub days: u8,
}

/// Arguments of `convert`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ConvertArgs {
    /// A temperature in degrees Celsius.
    pub celsius: f64,
}

/// The server.
#[derive(Debug, Clone)]
pub struct Weather {
    tool_router: ToolRouter<Self>,
}

impl Default for Weather {
    fn default() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Weather {
    #[tool(description = "The forecast for a city, a few days ahead.")]
    async fn forecast(
        &self,
        Parameters(ForecastArgs { city, days }): Parameters<ForecastArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if !(1..=7).contains(&days) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "days must be 1 to 7",
            )]));
        }
        let text = format!("{city}: sunny for {days} days");
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Degrees Celsius in Fahrenheit.")]
    async fn convert(
        &self,
        Parameters(ConvertArgs { celsius }): Parameters<ConvertArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let fahrenheit = celsius * 9.0 / 5.0 + 32.0;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            fahrenheit.to_string(),
        )]))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Weather {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("weather", "0.1.0"))
    }
}
