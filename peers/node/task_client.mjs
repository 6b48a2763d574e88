// A task-aware MCP client on the TypeScript SDK (@modelcontextprotocol/sdk), stdio or Streamable
// HTTP: the MCP Tasks of protocol 2025-11-25 (SEP-1686) as the SDK's experimental task API
// drives them against @modelcontextprotocol/server-everything.
//
// Usage: node task_client.mjs --tour TOUR [--timeout SECONDS] -- <server command> [args...]
//        node task_client.mjs --tour TOUR [--timeout SECONDS] --url http://HOST:PORT/mcp
//
// Tours (each one session):
//   research    `simulate-research-query` as a task: tools/call with `task`, tasks/get as the
//               server's pollInterval says until `completed`, then tasks/result
//   ambiguous   the same with `ambiguous: true`: the task goes `input_required`, the client calls
//               tasks/result, the server's elicitation comes queued to the task there and the
//               client answers it ("snake"), the task resumes and completes
//   client      the tasks the server asks the client to run: `trigger-sampling-request-async`
//               and `trigger-elicitation-request-async`; this client runs each as a task of its
//               own (its InMemoryTaskStore mints the id), finished 1.2 s later, and the server
//               polls the client's tasks/get and fetches tasks/result
//   manage      tasks/list, then one research task cancelled with tasks/cancel, then
//               tasks/get of the cancelled task
//
// The client declares elicitation and sampling, and the task capability for both, so the
// server registers its async tools. It prints each step's outcome as one compact JSON line
// on stdout; exit status 0 on success, 1 on any error (to stderr).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

// Keys sorted, as in tour_client.mjs: a fixture stores messages with sorted keys and a
// replay sends them so, and server-everything quotes the answer with JSON.stringify, in the
// order it was sent.
const SAMPLED = {
  content: { text: "A fixed answer from the task client's pretend model.", type: "text" },
  model: "task-model",
  role: "assistant",
  stopReason: "endTurn",
};
// A client task finishes this long after it was created: more than one of the server's
// 1 s polls, so the server sees it `working` first.
const CLIENT_TASK_MS = 1200;

function answerForm(schema) {
  const content = {};
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if ("default" in prop) content[name] = prop.default;
    else if (!required.has(name)) continue;
    else if (prop.oneOf) content[name] = prop.oneOf.find((o) => o.const === "snake")?.const ?? prop.oneOf[0].const;
    else if (prop.type === "string") content[name] = prop.enum ? prop.enum[0] : "Task Client";
    else if (prop.type === "integer" || prop.type === "number") content[name] = prop.minimum ?? 42;
    else if (prop.type === "boolean") content[name] = true;
    else throw new Error(`cannot answer elicitation field ${name} of type ${prop.type}`);
  }
  return Object.fromEntries(Object.entries(content).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// Answers `answer` now, or, when the server asked for a task, as a task of this client's
// own that completes CLIENT_TASK_MS later.
async function maybeAsTask(request, extra, answer) {
  if (!request.params.task || !extra.taskStore) return answer;
  const task = await extra.taskStore.createTask({ ttl: request.params.task.ttl ?? 60000, pollInterval: 1000 });
  setTimeout(() => {
    extra.taskStore.storeTaskResult(task.taskId, "completed", answer).catch((e) => console.error(e));
  }, CLIENT_TASK_MS);
  return { task };
}

async function runTask(client, name, args, out) {
  const stream = client.experimental.tasks.callToolStream(
    { name, arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60000 } },
  );
  const statuses = [];
  for await (const message of stream) {
    if (message.type === "taskStatus") statuses.push(message.task.status);
    else if (message.type === "result") {
      if (message.result.isError) throw new Error(`${name}: error result`);
      out({ step: name, statuses: [...new Set(statuses)], text: message.result.content[0].text.slice(0, 60) });
    } else if (message.type === "error") throw message.error;
  }
}

const TOURS = {
  research: async (client, out) => runTask(client, "simulate-research-query", { topic: "tides" }, out),
  ambiguous: async (client, out) =>
    runTask(client, "simulate-research-query", { topic: "python", ambiguous: true }, out),
  client: async (client, out) => {
    for (const [name, args] of [
      ["trigger-sampling-request-async", { prompt: "Name a colour.", maxTokens: 20 }],
      ["trigger-elicitation-request-async", {}],
    ]) {
      const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 30000 });
      if (result.isError) throw new Error(`${name}: error result`);
      out({ step: name, text: result.content[0].text.split("\n")[0] });
    }
  },
  manage: async (client, out) => {
    const before = await client.experimental.tasks.listTasks();
    out({ step: "tasks/list", count: before.tasks.length });
    const created = await client.request(
      { method: "tools/call", params: { name: "simulate-research-query", arguments: { topic: "tides" }, task: { ttl: 60000 } } },
      (await import("@modelcontextprotocol/sdk/types.js")).CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    out({ step: "tasks/cancel", status: cancelled.status });
    const after = await client.experimental.tasks.getTask(taskId);
    out({ step: "tasks/get", status: after.status });
  },
};

function parseArgs(argv) {
  const usage =
    "usage: task_client.mjs --tour research|ambiguous|client|manage [--timeout SECONDS] (-- <server command> [args...] | --url URL)";
  const dash = argv.indexOf("--");
  const opts = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  let tour;
  let timeout = 60;
  let url;
  for (let i = 0; i < opts.length; i += 2) {
    if (opts[i] === "--tour") tour = opts[i + 1];
    else if (opts[i] === "--timeout") timeout = Number(opts[i + 1]);
    else if (opts[i] === "--url") url = new URL(opts[i + 1]);
    else throw new Error(`unknown option ${opts[i]} (${usage})`);
  }
  if (!TOURS[tour]) throw new Error(`unknown tour ${tour} (${usage})`);
  if (url && command.length > 0) throw new Error(`give either --url or a server command, not both (${usage})`);
  if (!url && command.length === 0) throw new Error(usage);
  return { tour, timeoutMs: timeout * 1000, command, url };
}

async function main() {
  const { tour, timeoutMs, command, url } = parseArgs(process.argv.slice(2));
  const timer = setTimeout(() => {
    console.error(`task_client: timed out after ${timeoutMs} ms`);
    process.exit(1);
  }, timeoutMs);
  const client = new Client(
    { name: "task-client", version: "1.0.0" },
    {
      capabilities: {
        sampling: {},
        elicitation: { form: {} },
        tasks: {
          list: {},
          cancel: {},
          requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
        },
      },
      taskStore: new InMemoryTaskStore(),
    },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) =>
    maybeAsTask(request, extra, SAMPLED),
  );
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) =>
    maybeAsTask(request, extra, { action: "accept", content: answerForm(request.params.requestedSchema) }),
  );
  const transport = url
    ? new StreamableHTTPClientTransport(url)
    : new StdioClientTransport({ command: command[0], args: command.slice(1), env: process.env });
  await client.connect(transport);
  const out = (event) => console.log(JSON.stringify(event));
  await TOURS[tour](client, out);
  await transport.close();
  clearTimeout(timer);
  // The task store keeps a timer per task for its ttl: exit now, not when the last one ends.
  process.exit(0);
}

main().catch((error) => {
  console.error(`task_client: ${error?.stack ?? error}`);
  process.exit(1);
});
