// The TypeScript SDK client (1.32.2) for the conformance suite's client scenarios.
//
// Usage (as the suite runs it): node conformance_client.mjs [ARGS...] URL
//   the server URL is the last argument, the scenario is MCP_CONFORMANCE_SCENARIO
//   (initialize, tools_call, elicitation-sep1034-client-defaults, sse-retry).
//
// What it does, per scenario: connect over Streamable HTTP (initialize), list the tools, then
//   tools_call                            call add_numbers {a: 5, b: 3}
//   elicitation-sep1034-client-defaults   declare elicitation with applyDefaults (the SDK
//                                         fills in the schema's defaults), call
//                                         test_client_elicitation_defaults, accept with {}
//   sse-retry                             call test_reconnection (the server drops the POST
//                                         stream; the SDK reconnects with a GET and Last-Event-ID)
// and close. It prints one JSON line per step (keys sorted), nothing that varies between runs
// (no URL, no port, no session id), so a served recording must print the same lines as the
// live scenario. Exit status: 0 on success, 1 on any error (to stderr).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted(value[k])]));
  }
  return value;
}
const emit = (event) => console.log(JSON.stringify(sorted(event)));

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize";
const calls = {
  tools_call: { name: "add_numbers", arguments: { a: 5, b: 3 } },
  "elicitation-sep1034-client-defaults": { name: "test_client_elicitation_defaults", arguments: {} },
  "sse-retry": { name: "test_reconnection", arguments: {} },
};

try {
  const elicits = scenario === "elicitation-sep1034-client-defaults";
  const capabilities = elicits ? { elicitation: { form: { applyDefaults: true } } } : {};
  const client = new Client({ name: "mcp-replay-conformance-client", version: "1.0.0" }, { capabilities });
  if (elicits) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      emit({ event: "server-request", method: "elicitation/create", message: request.params.message });
      return { action: "accept", content: {} };
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  emit({ event: "initialize", protocolVersion: transport.protocolVersion ?? null, serverInfo: client.getServerVersion() });
  const tools = await client.listTools();
  emit({ event: "tools", names: tools.tools.map((t) => t.name) });
  if (calls[scenario]) {
    const result = await client.callTool(calls[scenario]);
    emit({ event: "result", tool: calls[scenario].name, result });
  }
  await transport.close();
} catch (error) {
  console.error(`conformance_client.mjs: ${error?.stack ?? error}`);
  process.exit(1);
}
