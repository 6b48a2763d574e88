// A real MCP client (the TypeScript SDK, stdio) for peers/python/crm_server.py, the mirror
// of peers/python/crm_client.py: it lists the tools through every page, creates a customer
// (with a progress callback), follows the result's resource_link, reads the customer by the
// id it was given, and asks for the owner's customers by the e-mail address the server
// returned. It prints what it saw as shapes, never the values, so that its output is the
// same in every run, live or against `mcp-replay serve`.
//
// Usage: node crm_client.mjs -- <server command> [args...]
// Prints one JSON line a step; exit status 0 on success, 1 on any error (stderr).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const emit = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
// Runs of six or more hex digits as `<N hex>`, the rest kept.
const shape = (value) => value.replace(/[0-9a-f]{6,}/g, (m) => `<${m.length} hex>`);

async function main() {
  const argv = process.argv.slice(2);
  const command = argv[0] === "--" ? argv.slice(1) : argv;
  if (command.length === 0) throw new Error("missing server command (usage: crm_client.mjs -- <server command>)");
  const transport = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
  const client = new Client({ name: "mcp-replay-crm-client-ts", version: "1.0.0" });
  await client.connect(transport);

  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  emit({ event: "tools", names });

  const progress = [];
  const created = await client.callTool(
    { name: "create_customer", arguments: { name: "Ada" } },
    undefined,
    { onprogress: (p) => progress.push(p.message ?? "") },
  );
  if (created.isError) throw new Error(`create_customer: ${created.content[0].text}`);
  const customer = created.structuredContent ?? {};
  const { id, owner } = customer;
  const link = created.content.find((c) => c.type === "resource_link");
  emit({
    event: "created",
    id: shape(id),
    uri: shape(link.uri),
    uri_names_id: link.uri.endsWith(id),
    owner_is_email: /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(owner),
    created_at_is_time: !Number.isNaN(Date.parse(customer.createdAt)),
    progress: progress.map(shape),
  });

  const read = await client.readResource({ uri: link.uri });
  const record = JSON.parse(read.contents[0].text);
  emit({ event: "read", same_id: record.id === id, name: record.name });

  const got = await client.callTool({ name: "get_customer", arguments: { id } });
  if (got.isError) throw new Error(`get_customer: ${got.content[0].text}`);
  emit({ event: "got", text_names_owner: got.content[0].text.includes(owner) });

  const mine = await client.callTool({ name: "customers_by_owner", arguments: { owner } });
  const ids = mine.structuredContent?.customers ?? [];
  emit({ event: "owned", ids: ids.length === 1 && ids[0] === id });
  await client.close();
}

main().catch((e) => {
  process.stderr.write(`crm_client.mjs: error: ${e?.message ?? e}\n`);
  process.exit(1);
});
