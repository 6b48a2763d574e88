// A notes server on the TypeScript SDK (@modelcontextprotocol/sdk, McpServer over stdio),
// written as a user of that SDK writes one: the same contract as the Rust SDK peers
// (peers/turbomcp, peers/pmcp), so that one battery of tests runs against three SDKs whose
// refusals are worded differently (docs/sdks.md).
//
// Usage: node notes_server.mjs [--next]
//
// Tools:
//   add_note(text, tag)         -> text "created note-<16 random hex>" (the id only in text)
//                                  --next: also requires priority (a number); without it the
//                                  SDK refuses the call as an isError result of its own words
//   get_note(id)                -> text "<text> [<tag>]"; an unknown id is a tool error
//   find_customer(name)         -> structuredContent {name, email, phone} and a text
//                                  "contact <email> (<phone>)": one value in structure and text
//   email_customer(email, subject) -> text "queued 1 message"
//   list_tags()                 -> structuredContent {tags}: home, work, errand in an order
//                                  drawn anew on every call (as a hash-ordered list comes)

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { randomBytes } from "node:crypto";
import { z } from "zod";

const next = process.argv.includes("--next");
const server = new McpServer({ name: "notes-ts", version: "1.0.0" });
const notes = new Map();
const CUSTOMER = { name: "Alice Martin", email: "alice.martin@example.com", phone: "+49 30 1234567" };

const addArgs = { text: z.string(), tag: z.string() };
if (next) addArgs.priority = z.number().int();

server.registerTool("add_note", { description: "Add a note; answers its new id.", inputSchema: addArgs },
  async ({ text, tag }) => {
    const id = `note-${randomBytes(8).toString("hex")}`;
    notes.set(id, { text, tag });
    return { content: [{ type: "text", text: `created ${id}` }] };
  });

server.registerTool("get_note", { description: "A note's text and tag.", inputSchema: { id: z.string() } },
  async ({ id }) => {
    const note = notes.get(id);
    if (!note) return { content: [{ type: "text", text: `no note ${id}` }], isError: true };
    return { content: [{ type: "text", text: `${note.text} [${note.tag}]` }] };
  });

server.registerTool("find_customer", {
  description: "A customer's contact.",
  inputSchema: { name: z.string() },
  outputSchema: { name: z.string(), email: z.string(), phone: z.string() },
}, async () => ({
  content: [{ type: "text", text: `contact ${CUSTOMER.email} (${CUSTOMER.phone})` }],
  structuredContent: { ...CUSTOMER },
}));

server.registerTool("email_customer", {
  description: "Queue an e-mail to a customer.",
  inputSchema: { email: z.string(), subject: z.string() },
}, async () => ({ content: [{ type: "text", text: "queued 1 message" }] }));

server.registerTool("list_tags", {
  description: "The tags, in no fixed order.",
  outputSchema: { tags: z.array(z.string()) },
}, async () => {
  const tags = ["home", "work", "errand"];
  for (let i = tags.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [tags[i], tags[j]] = [tags[j], tags[i]];
  }
  return { content: [{ type: "text", text: JSON.stringify({ tags }) }], structuredContent: { tags } };
});

await server.connect(new StdioServerTransport());
