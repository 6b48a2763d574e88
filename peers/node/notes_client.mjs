// A client of the notes servers (docs/sdks.md) on the TypeScript SDK, over stdio: what a
// user's client does with them, for `mcp-replay record` to write (tests/sdk_peers.rs).
//
// Usage: node notes_client.mjs -- <server command> [args...]
//
// It adds a note and reads it back by the id its answer gave only inside a text (a
// sentence, or pmcp's JSON text), then finds the customer and e-mails the address its
// structuredContent gave. It prints what it saw as one JSON line, with the values minted
// per run written as their shapes, so that a session served from a recording prints what
// the live one did.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const dash = process.argv.indexOf("--");
if (dash < 0 || dash + 1 >= process.argv.length) {
  console.error("usage: node notes_client.mjs -- <server command> [args...]");
  process.exit(2);
}
const [command, ...args] = process.argv.slice(dash + 1);
const client = new Client({ name: "notes-client", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

const text = (result) => result.content?.[0]?.text ?? "";
const created = await client.callTool({ name: "add_note", arguments: { text: "milk", tag: "home" } });
const id = text(created).match(/note-[0-9a-z]+/)?.[0];
if (!id) throw new Error(`no id in ${JSON.stringify(created)}`);
const read = await client.callTool({ name: "get_note", arguments: { id } });
const found = await client.callTool({ name: "find_customer", arguments: { name: "Alice" } });
const email = found.structuredContent?.email;
if (!email) throw new Error(`no email in ${JSON.stringify(found)}`);
const sent = await client.callTool({ name: "email_customer", arguments: { email, subject: "hi" } });
console.log(JSON.stringify({
  id: id.replace(/[0-9a-f]{6,}/, "<hex>"),
  read: text(read),
  email_has_at: email.includes("@"),
  sent: text(sent),
}));
await client.close();
