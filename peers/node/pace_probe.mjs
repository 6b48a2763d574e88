// pace_probe.mjs: how many progress callbacks a tour client sees when a recording's server
// lines reach it with a gap between them.
//
//   node peers/node/pace_probe.mjs [--runs N] [--gaps MS,MS,...] [--clients ts,python,rmcp]
//   node peers/node/pace_probe.mjs play [--gap MS] FIXTURE
//
// The first form (the probe) runs each client N times (default 20) for each gap (default
// 0,1,2,5 ms) against `pace_probe.mjs play --gap MS tests/fixtures/matrix/<client>.jsonl`,
// the client's own recording (scripts/record-client-matrix.sh), and prints a table: how
// many of the recording's progress notifications reached the client's progress callback,
// run by run. For the TypeScript tour client that is its progress lines minus the ones it
// notes on stderr as "late progress" (read together with their response, so onprogress did
// not see them: see tour_client.mjs); for the Python and rmcp clients, their progress lines.
// Runs are sequential; a client that fails a run is reported with its stderr and the probe
// exits 1.
//
// The second form (the player) is the server side: a stand-in for `mcp-replay serve`
// without its comparison, for a client that sends one request at a time. It walks the
// fixture: each client message must have the recorded method (or be the answer to a server
// request), then the server lines that follow it in the fixture are written, each with its
// own write, MS milliseconds apart (0: one write after the other, each flushed to the pipe
// before the next, as `mcp-replay serve` does today). A response gets the live id of the
// client's latest request, a progress notification the live token of the latest request
// that carried one, a server request an id of the player's own; after a server request the
// player waits for the client's answer. Nothing is read from the network; exit 0 when the
// client closes stdin, 1 when a client message is not the recorded one.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// ---- the player ----

async function play(gap, fixturePath) {
  const entries = readFileSync(fixturePath, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  let position = 0;
  let lastRequestId = null;
  let lastToken = null;
  let nextServerId = 0;
  const write = (message) =>
    new Promise((done, fail) => process.stdout.write(JSON.stringify(message) + "\n", (e) => (e ? fail(e) : done())));

  // Writes the server lines from `position` up to the next client line (or a server request).
  async function deliver() {
    let first = true;
    while (position < entries.length && entries[position].direction === "server->client") {
      const message = structuredClone(entries[position].message);
      position += 1;
      const isRequest = "method" in message && "id" in message;
      if (isRequest) message.id = nextServerId++;
      else if ("id" in message) message.id = lastRequestId;
      if (typeof message.params?.progressToken === "string" && message.params.progressToken.startsWith("<PROGRESS_TOKEN")) {
        message.params.progressToken = lastToken;
      }
      if (!first && gap > 0) await sleep(gap);
      first = false;
      await write(message);
      if (isRequest) break; // the client answers it next
    }
  }

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    const expected = entries[position];
    const fits =
      expected?.direction === "client->server" &&
      ("method" in expected.message ? message.method === expected.message.method : !("method" in message));
    if (!fits) {
      const want = expected ? JSON.stringify(expected.message).slice(0, 200) : "(the end of the fixture)";
      console.error(`pace_probe play: client sent ${line.slice(0, 200)}; the fixture has ${want} (line ${position + 1})`);
      process.exit(1);
    }
    position += 1;
    if ("method" in message && "id" in message) {
      lastRequestId = message.id;
      const token = message.params?._meta?.progressToken;
      if (token !== undefined) lastToken = token;
    }
    await deliver();
  }
  process.exit(0);
}

// ---- the probe ----

function clientCommand(name) {
  const targetDir = process.env.CARGO_TARGET_DIR ?? join(REPO, "target");
  switch (name) {
    case "ts": return ["node", [join(HERE, "tour_client.mjs"), "--tour", "everything"]];
    case "python": return [join(REPO, "peers/python/.venv/bin/python"), [join(REPO, "peers/python/tour_client.py"), "--tour", "everything"]];
    case "rmcp": return [join(targetDir, "debug/tour-client"), []];
    default: throw new Error(`unknown client ${name} (ts, python or rmcp)`);
  }
}

function runOnce(name, gap) {
  const [program, args] = clientCommand(name);
  const fixture = join(REPO, "tests/fixtures/matrix", `${name}.jsonl`);
  const server = [process.execPath, fileURLToPath(import.meta.url), "play", "--gap", String(gap), fixture];
  return new Promise((done) => {
    const child = spawn(program, [...args, "--", ...server], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => {
      const progress = stdout.split("\n").filter((l) => l.includes('"event":"progress"')).length;
      const late = (stderr.match(/late progress/g) ?? []).length;
      done({ code, progress, callbacks: progress - late, stderr });
    });
  });
}

async function probe({ runs, gaps, clients }) {
  const rows = [];
  for (const name of clients) {
    const fixture = readFileSync(join(REPO, "tests/fixtures/matrix", `${name}.jsonl`), "utf8");
    const recorded = (fixture.match(/"method":"notifications\/progress"/g) ?? []).length;
    for (const gap of gaps) {
      const counts = [];
      for (let run = 1; run <= runs; run++) {
        const result = await runOnce(name, gap);
        if (result.code !== 0) {
          console.error(`${name}, gap ${gap} ms, run ${run}: the client exited ${result.code}:\n${result.stderr}`);
          process.exit(1);
        }
        counts.push(result.callbacks);
      }
      const histogram = [...new Set(counts)].sort((a, b) => a - b)
        .map((c) => `${c}/${recorded}: ${counts.filter((x) => x === c).length}`).join(", ");
      const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
      const all = counts.filter((c) => c === recorded).length;
      rows.push([name, `${gap} ms`, `${all}/${runs}`, mean.toFixed(2), histogram]);
      console.error(`${name}, gap ${gap} ms: ${histogram}`);
    }
  }
  const head = ["client", "gap", `runs with every callback`, "mean callbacks", "callbacks seen: runs"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  console.log(line(head));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const row of rows) console.log(line(row));
}

function main(argv) {
  if (argv[0] === "play") {
    let gap = 0;
    const rest = argv.slice(1);
    if (rest[0] === "--gap") {
      gap = Number(rest[1]);
      rest.splice(0, 2);
    }
    if (rest.length !== 1 || !(gap >= 0)) throw new Error("usage: pace_probe.mjs play [--gap MS] FIXTURE");
    return play(gap, rest[0]);
  }
  const options = { runs: 20, gaps: [0, 1, 2, 5], clients: ["ts", "python"] };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (argv[i] === "--runs") options.runs = Number(value);
    else if (argv[i] === "--gaps") options.gaps = value.split(",").map(Number);
    else if (argv[i] === "--clients") options.clients = value.split(",");
    else throw new Error(`unknown option ${argv[i]} (usage: pace_probe.mjs [--runs N] [--gaps MS,...] [--clients ts,python,rmcp])`);
  }
  return probe(options);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`pace_probe.mjs: ${error?.message ?? error}`);
  process.exit(1);
});
