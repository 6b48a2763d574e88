// The TypeScript SDK's client (stdio) making one call, for the facts docs/mock.md pins
// about faults on cue: it calls `lookup_issue` (demo, sample, 42) with a timeout of its
// own (3 s) and prints what came back as one JSON line: {"result": ...}, or
// {"error": NAME, "message": ...}, or {"closed": true} when the transport closed first.
//
// Usage: node fault_client.mjs [--progress] -- <server command> [args...]
//        node fault_client.mjs [--progress] --url http://127.0.0.1:PORT/mcp   (Streamable HTTP)
// With --progress it calls `count_up` (to 3) with a progress handler instead, and the line
// also says which progress messages came before the result and which after it (200 ms),
// and the client's errors: {"result": ..., "before": [...], "after": [...], "errors": [...]}.
// Exit status 0 whatever the call gave (the line says what); 1 if it could not connect.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const emit = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function main() {
  let argv = process.argv.slice(2);
  const progress = argv[0] === "--progress";
  if (progress) argv = argv.slice(1);
  const command = argv[0] === "--" ? argv.slice(1) : argv;
  const transport = argv[0] === "--url"
    ? new StreamableHTTPClientTransport(new URL(argv[1]), {
        reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 },
      })
    : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
  const client = new Client({ name: "mcp-replay-fault-client-ts", version: "1.0.0" });
  let closed = false;
  transport.onclose = () => { closed = true; };
  await client.connect(transport);
  if (progress) {
    const seen = { before: [], after: [], errors: [] };
    let answered = false;
    client.onerror = (e) => seen.errors.push(String(e?.message ?? e));
    const result = await client.callTool(
      { name: "count_up", arguments: { to: 3 } },
      undefined,
      { timeout: 3000, onprogress: (p) => (answered ? seen.after : seen.before).push(p.message) },
    );
    answered = true;
    await new Promise((r) => setTimeout(r, 200));
    emit({ result, ...seen });
    await client.close().catch(() => {});
    return;
  }
  try {
    const result = await client.callTool(
      { name: "lookup_issue", arguments: { owner: "demo", repo: "sample", number: 42 } },
      undefined,
      { timeout: 3000 },
    );
    emit({ result });
  } catch (e) {
    emit({ error: e?.constructor?.name ?? "Error", message: String(e?.message ?? e), closed });
  }
  await client.close().catch(() => {});
}

main().catch((e) => {
  console.error(`fault_client.mjs: ${e?.stack ?? e}`);
  process.exit(1);
});
