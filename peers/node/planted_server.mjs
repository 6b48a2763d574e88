// A server with planted defects on the TypeScript SDK's low-level Server (it checks neither
// arguments nor structured results: the server's own code does), over stdio, for
// `mcp-replay explore` (tests/explore.rs). With --fixed, every defect is mended.
//
// Tools:
//   divide(a, b)      integers; b = 0: the process exits (a crash); fixed: a tool error
//   stats(values)     numbers; outputSchema {mean: number}; an empty list: mean "none"
//                     (breaks its own outputSchema); fixed: mean 0
//   search(query)     a query over 10,000 characters is never answered (a hang); fixed: a
//                     tool error
// Invalid arguments (a required field missing, a wrong type, an unknown field) are answered
// with a JSON-RPC error -32602; fixed: a tool error with isError.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

const fixed = process.argv.includes("--fixed");
const server = new Server({ name: "planted-ts", version: "1.0.0" }, { capabilities: { tools: {} } });

const TOOLS = [
  { name: "divide", description: "a / b",
    inputSchema: { type: "object", additionalProperties: false,
      properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] } },
  { name: "stats", description: "The mean of the values.",
    inputSchema: { type: "object", properties: { values: { type: "array", items: { type: "number" } } }, required: ["values"] },
    outputSchema: { type: "object", properties: { mean: { type: "number" } }, required: ["mean"] } },
  { name: "search", description: "Searches.",
    inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
];

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));

const text = (t) => ({ content: [{ type: "text", text: t }] });
const refuse = (why) => {
  if (fixed) return { ...text(why), isError: true };
  throw new McpError(-32602, why);
};

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "divide": {
      const { a, b } = args;
      if (!Number.isInteger(a) || !Number.isInteger(b) || Object.keys(args).length > 2) return refuse("a and b, integers");
      if (b === 0) {
        if (fixed) return { ...text("b must not be 0"), isError: true };
        process.exit(3);
      }
      return text(String(Math.trunc(a / b)));
    }
    case "stats": {
      const { values } = args;
      if (!Array.isArray(values) || !values.every((v) => typeof v === "number")) return refuse("values: numbers");
      const mean = values.length ? values.reduce((s, v) => s + v, 0) / values.length : fixed ? 0 : "none";
      return { ...text(String(mean)), structuredContent: { mean } };
    }
    case "search": {
      const { query } = args;
      if (typeof query !== "string") return refuse("query: a string");
      if (query.length > 10000) {
        if (fixed) return { ...text("the query is too long"), isError: true };
        await new Promise(() => {});
      }
      return text(`0 results for ${query.length}`);
    }
    default:
      throw new McpError(-32602, `no tool ${request.params.name}`);
  }
});

await server.connect(new StdioServerTransport());
