// A "desktop-like" MCP client on the TypeScript SDK (@modelcontextprotocol/sdk), stdio or
// Streamable HTTP.
//
// Usage: node tour_client.mjs --tour everything [--timeout SECONDS] -- <server command> [args...]
//        node tour_client.mjs --tour everything [--timeout SECONDS] --url http://HOST:PORT/mcp
//
// With --url it connects with the SDK's StreamableHTTPClientTransport instead of launching the
// server; it ends by closing the transport, without a DELETE (as the SDK's close() does), so
// the server sees the client go away.
//
// The TypeScript twin of peers/python/tour_client.py: it declares roots, sampling and
// elicitation and answers each with fixed values, prints logs and progress, and runs the
// same "everything" tour of @modelcontextprotocol/server-everything (calls chosen from its
// source to answer without clocks, randomness or environment).
//
//   roots        one root, file:///srv/mcp-replay-tour (name "tour"), made up and outside /tmp,
//                the home and the workspace, which the recorder would turn into placeholders
//                (see tour_client.py)
//   sampling     always a fixed assistant text from model "tour-model", stopReason "endTurn"
//   elicitation  accepts: each field with a default gets it, each other required field a
//                value from its type, keys sorted (answerForm)
//
// Every event is one compact JSON line on stdout ("initialize", "result", "progress", "log",
// "notification", "server-request"), every object inside it with its keys sorted: a fixture
// stores messages with sorted keys, so a session served from one prints what the live one
// did (tests/client_matrix.rs compares them). Exit status 0 on success; 1 on any error (to
// stderr): spawn failure, JSON-RPC error, timeout, closed connection, or a tool result with
// isError.
//
// Progress: the SDK runs notification handlers a microtask after it reads them but settles a
// response at once, so a progress notification read in the same chunk as its response finds
// its onprogress handler gone; the SDK then reports it through client.onerror ("Received a
// progress notification for an unknown token"). Whether that happens depends on how the
// server's writes were chunked, so this client prints such a progress as well, the same
// line in the same place (the handler microtask still runs before the call's continuation),
// and says on stderr that onprogress missed it ("late progress"): stdout holds every
// progress the SDK received, stderr how many of them its callback did not see.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const ROOT = { uri: "file:///srv/mcp-replay-tour", name: "tour" };
const SAMPLED_TEXT = "A fixed answer from the tour client's pretend model.";
const DOC = "demo://resource/static/document/extension.md";

// Each step: [label, method, params]; "call" is tools/call, "call+progress" adds onprogress.
// The same sequence as the Python client's "everything" tour.
const TOURS = {
  everything: [
    ["tools", "tools/list", {}],
    ["echo", "call", { name: "echo", arguments: { message: "hello from the tour" } }],
    ["get-sum", "call", { name: "get-sum", arguments: { a: 2, b: 3 } }],
    // 1.5 s in 3 steps: the server's own roots/list (350 ms after initialized) tends to land inside.
    ["long", "call+progress", { name: "trigger-long-running-operation", arguments: { duration: 1.5, steps: 3 } }],
    ["annotated", "call", { name: "get-annotated-message", arguments: { messageType: "success" } }],
    ["structured", "call", { name: "get-structured-content", arguments: { location: "Chicago" } }],
    ["resources", "resources/list", {}],
    ["templates", "resources/templates/list", {}],
    ["read", "resources/read", { uri: DOC }],
    ["subscribe", "resources/subscribe", { uri: DOC }],
    ["unsubscribe", "resources/unsubscribe", { uri: DOC }],
    ["prompts", "prompts/list", {}],
    ["prompt", "prompts/get", { name: "completable-prompt", arguments: { department: "Engineering", name: "Alice" } }],
    ["complete-department", "completion/complete",
      { ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "E" } }],
    ["complete-name", "completion/complete",
      { ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "name", value: "" },
        context: { arguments: { department: "Engineering" } } }],
    ["complete-resource", "completion/complete",
      { ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
        argument: { name: "resourceId", value: "3" } }],
    ["set-level", "logging/setLevel", { level: "info" }],
    ["sampling", "call", { name: "trigger-sampling-request", arguments: { prompt: "What is two plus two?", maxTokens: 32 } }],
    ["roots", "call", { name: "get-roots-list", arguments: {} }],
    ["elicitation", "call", { name: "trigger-elicitation-request", arguments: {} }],
    ["ping", "ping", {}],
  ],
};

// `value` with the keys of every object sorted (arrays keep their order).
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, sorted(value[k])]));
}

// One event line: its own keys in the order written, every object inside them sorted.
const emit = (obj) =>
  process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, sorted(v)]))) + "\n");

const LATE_PROGRESS = "Received a progress notification for an unknown token: ";
let progressStep = null; // the label of the call+progress step in flight, for late progress

// Fixed, schema-valid content for a form elicitation: defaults where given, else by type.
function answerForm(schema) {
  const content = {};
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if ("default" in prop) content[name] = prop.default;
    else if (!required.has(name)) continue;
    else if (prop.type === "string") content[name] = prop.enum ? prop.enum[0] : "Tour Client";
    else if (prop.type === "integer" || prop.type === "number") content[name] = prop.minimum ?? 42;
    else if (prop.type === "boolean") content[name] = true;
    else throw new Error(`cannot answer elicitation field ${name} of type ${prop.type}`);
  }
  // Keys sorted: a fixture stores the answer with sorted keys and a replay sends it so, and
  // server-everything echoes the content with JSON.stringify, in the order it was sent.
  return Object.fromEntries(Object.entries(content).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function parseArgs(argv) {
  const usage =
    "usage: tour_client.mjs --tour everything [--timeout SECONDS] (-- <server command> [args...] | --url URL)";
  const dash = argv.indexOf("--");
  const opts = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  let tour;
  let timeout = 30;
  let url;
  for (let i = 0; i < opts.length; i += 2) {
    if (opts[i] === "--tour") tour = opts[i + 1];
    else if (opts[i] === "--timeout") timeout = Number(opts[i + 1]);
    else if (opts[i] === "--url") url = new URL(opts[i + 1]);
    else throw new Error(`unknown option ${opts[i]} (${usage})`);
  }
  if (!(tour in TOURS)) throw new Error(`--tour must be one of ${Object.keys(TOURS).join(", ")} (${usage})`);
  if (url && command.length > 0) throw new Error(`give either --url or a server command, not both (${usage})`);
  if (!url && command.length === 0) throw new Error(`missing server command (${usage})`);
  return { tour, timeoutMs: timeout * 1000, command, url };
}

async function step(client, label, method, params, timeoutMs) {
  const options = { timeout: timeoutMs };
  switch (method) {
    case "call":
    case "call+progress": {
      if (method === "call+progress") {
        // A progress read in the same chunk as the response misses this callback: see onerror in main.
        options.onprogress = (p) => emit({ event: "progress", step: label, progress: p.progress, total: p.total, message: p.message });
        progressStep = label;
      }
      const result = await client.callTool(params, undefined, options);
      progressStep = null;
      if (result.isError) throw new Error(`tool ${params.name} returned isError: true: ${JSON.stringify(result)}`);
      return result;
    }
    case "tools/list": return (await client.listTools(undefined, options)).tools.map((t) => t.name);
    case "resources/list": return (await client.listResources(undefined, options)).resources.map((r) => r.uri);
    case "resources/templates/list":
      return (await client.listResourceTemplates(undefined, options)).resourceTemplates.map((t) => t.uriTemplate);
    case "resources/read": return client.readResource(params, options);
    case "resources/subscribe": return client.subscribeResource(params, options);
    case "resources/unsubscribe": return client.unsubscribeResource(params, options);
    case "prompts/list": return (await client.listPrompts(undefined, options)).prompts.map((p) => p.name);
    case "prompts/get": return client.getPrompt(params, options);
    case "completion/complete": return client.complete(params, options);
    case "logging/setLevel": return client.setLoggingLevel(params.level, options);
    case "ping": return client.ping(options);
    default: throw new Error(`unknown tour step method ${method}`);
  }
}

async function main() {
  const { tour, timeoutMs, command, url } = parseArgs(process.argv.slice(2));
  const client = new Client(
    { name: "mcp-replay-tour-client-ts", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    emit({ event: "server-request", method: "roots/list" });
    return { roots: [ROOT] };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    emit({ event: "server-request", method: "sampling/createMessage", params: request.params });
    return { role: "assistant", content: { type: "text", text: SAMPLED_TEXT }, model: "tour-model", stopReason: "endTurn" };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    emit({ event: "server-request", method: "elicitation/create", message: request.params.message });
    if (request.params.mode === "url") return { action: "decline" }; // never opened here
    return { action: "accept", content: answerForm(request.params.requestedSchema) };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
    emit({ event: "log", level: n.params.level, logger: n.params.logger ?? null, data: n.params.data });
  });
  // Any other notification (list_changed, resources/updated) is printed by method.
  client.fallbackNotificationHandler = async (n) => emit({ event: "notification", method: n.method });

  // Inherit the whole environment (the SDK default passes only a safe subset).
  const transport = url
    ? new StreamableHTTPClientTransport(url)
    : new StdioClientTransport({ command: command[0], args: command.slice(1), env: process.env });
  let transportError;
  transport.onerror = (error) => { transportError ??= error; };
  // Progress that arrived after its response (see the header): printed like onprogress would.
  client.onerror = (error) => {
    const text = String(error?.message ?? error);
    if (text.startsWith(LATE_PROGRESS) && progressStep !== null) {
      const { params: p } = JSON.parse(text.slice(LATE_PROGRESS.length));
      emit({ event: "progress", step: progressStep, progress: p.progress, total: p.total, message: p.message });
      console.error(`tour_client.mjs: late progress ${p.progress} of step ${progressStep}: read with its response, onprogress did not see it`);
    } else {
      console.error(`tour_client.mjs: SDK error: ${text}`);
    }
  };
  await client.connect(transport, { timeout: timeoutMs });
  emit({ event: "initialize", serverInfo: client.getServerVersion() });
  for (const [label, method, params] of TOURS[tour]) {
    const result = await step(client, label, method, params, timeoutMs);
    emit({ event: "result", step: label, method, result });
  }
  await client.close();
  if (transportError) throw transportError;
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`tour_client.mjs: error: ${error?.message ?? error}`);
    process.exit(1);
  },
);
