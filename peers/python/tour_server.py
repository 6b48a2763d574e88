"""Deterministic MCP "tour" server (stdio) on the Python `mcp` SDK 2.x.

A companion to server.py (which must stay as it is: its fixtures are pinned)
that exercises what a desktop client's session holds: server-to-client
requests (sampling, elicitation, roots), progress with a log per step, a
resource, a resource template with completion, a prompt, logging/setLevel and
resources/subscribe.

Every value it writes is a pure function of what it is sent (no clock, no
randomness, no environment). Its *timing* is not: 300 ms after
`notifications/initialized` it sends `roots/list` on its own and then logs how
many roots came back, so that request races whatever the client sends next.

Tools:
  echo(text)          -> text "<text>"
  slow_count(n)       -> n steps 100 ms apart; each step logs (info) "step i of n"
                         and reports progress i/n "step i"; then text "counted to <n>"
  ask_llm(question)   -> sampling/createMessage with the question; text
                         "model <model> said: <the sample's text>"
  ask_user()          -> elicitation/create for {name: string, age: integer};
                         text "hello <name> (<age>)", or "user declined"/"user cancelled"
  show_roots()        -> roots/list; text "<n> root(s): <uri>, ..."
Resources:
  tour://readme                (static, text/plain)
  tour://notes/{topic}         (template; completion of `topic` from a fixed list)
Prompt:
  greet(name)                  -> one user message "Please greet <name>."
Also: logging/setLevel (remembered, acknowledged with {}), resources/subscribe and
resources/unsubscribe (acknowledged with {}; subscribing first sends one
notifications/resources/updated for the URI, so its order is fixed).

Usage: python tour_server.py
"""

from __future__ import annotations

import warnings
from typing import Any

import anyio
from pydantic import BaseModel

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.server.streamable_http import EventMessage, EventStore

# The legacy (handshake-era) features used here are deprecated at protocol 2026-07-28;
# they are exactly what this peer exercises, so keep stderr free of the warnings.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

ROOTS_DELAY_S = 0.3  # the unsolicited roots/list after notifications/initialized
STEP_S = 0.1  # one slow_count step
TOPICS = ["alpha", "beta", "gamma", "gamut"]  # tour://notes/{topic} completions


class Contact(BaseModel):
    """The form ask_user elicits (flat, primitive fields only, as the spec requires)."""

    name: str
    age: int


def build_server() -> MCPServer:
    server = MCPServer("mcp-replay-tour", version="1.0.0", log_level="WARNING")
    state = {"log_level": "info", "subscriptions": set()}

    # ---- tools ---------------------------------------------------------------

    @server.tool(description="Echo the given text back.", structured_output=False)
    def echo(text: str) -> str:
        return text

    @server.tool(description="Count to n slowly, logging and reporting progress at each step.", structured_output=False)
    async def slow_count(n: int, ctx: Context) -> str:
        for step in range(1, n + 1):
            await anyio.sleep(STEP_S)
            await ctx.info(f"step {step} of {n}")
            await ctx.report_progress(step, n, f"step {step}")
        return f"counted to {n}"

    @server.tool(description="Ask the client's model a question (sampling).", structured_output=False)
    async def ask_llm(question: str, ctx: Context) -> str:
        result = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))],
            max_tokens=64,
            system_prompt="Answer in one short sentence.",
            related_request_id=ctx.request_context.request_id,
        )
        text = result.content.text if isinstance(result.content, types.TextContent) else "(not text)"
        return f"model {result.model} said: {text}"

    @server.tool(description="Ask the user for a name and an age (elicitation).", structured_output=False)
    async def ask_user(ctx: Context) -> str:
        answer = await ctx.elicit("Who are you?", schema=Contact)
        if answer.action == "accept":
            return f"hello {answer.data.name} ({answer.data.age})"
        return {"decline": "user declined", "cancel": "user cancelled"}[answer.action]

    @server.tool(description="List the client's roots.", structured_output=False)
    async def show_roots(ctx: Context) -> str:
        listed = await ctx.session.list_roots()
        return f"{len(listed.roots)} root(s): " + ", ".join(str(root.uri) for root in listed.roots)

    # ---- resources, template, completion, prompt -----------------------------

    @server.resource("tour://readme", name="readme", mime_type="text/plain", description="What this server is.")
    def readme() -> str:
        return "mcp-replay tour server: a deterministic peer for recorded sessions."

    @server.resource("tour://notes/{topic}", name="note", mime_type="text/plain", description="A note on a topic.")
    def note(topic: str) -> str:
        return f"Notes on {topic}."

    @server.completion()
    async def complete(ref, argument, context):  # noqa: ANN001 - the SDK's completion signature
        if isinstance(ref, types.ResourceTemplateReference) and argument.name == "topic":
            values = [t for t in TOPICS if t.startswith(argument.value)]
            return types.Completion(values=values, total=len(values), has_more=False)
        return None

    @server.prompt(description="Ask the model to greet someone.")
    def greet(name: str) -> str:
        return f"Please greet {name}."

    # ---- handlers MCPServer has no decorator for (lowlevel server) -----------
    lowlevel = server._lowlevel_server  # noqa: SLF001 - no public seam for these handlers

    async def set_level(ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:  # noqa: ANN001
        state["log_level"] = params.level
        return types.EmptyResult()

    async def subscribe(ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:  # noqa: ANN001
        state["subscriptions"].add(str(params.uri))
        # Sent before the response, on the same stream: its order is fixed.
        await ctx.session.send_resource_updated(params.uri)
        return types.EmptyResult()

    async def unsubscribe(ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:  # noqa: ANN001
        state["subscriptions"].discard(str(params.uri))
        return types.EmptyResult()

    async def initialized(ctx, params: types.NotificationParams) -> None:  # noqa: ANN001
        # Runs as its own task (the SDK spawns notification handlers), so sleeping here
        # does not hold up the client's requests: the roots/list below races them.
        caps = ctx.session.client_capabilities
        if caps is None or caps.roots is None:
            return
        await anyio.sleep(ROOTS_DELAY_S)
        listed = await ctx.session.list_roots()
        await ctx.session.send_log_message("info", f"{len(listed.roots)} root(s) at startup", logger="tour")

    lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)
    lowlevel.add_notification_handler("notifications/initialized", types.NotificationParams, initialized)
    return server


class MemoryEventStore(EventStore):
    """Every event of every stream, in order, for `Last-Event-ID` resumption: a resumed
    stream gets the events of its own stream after the one named, and nothing else."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []  # (event id, stream id, message or None)

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        found = [i for i, (event_id, _, _) in enumerate(self.events) if event_id == last_event_id]
        if not found:
            return None
        stream = self.events[found[0]][1]
        for event_id, stream_id, message in self.events[found[0] + 1 :]:
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


if __name__ == "__main__":
    # `--http PORT`: the same server over Streamable HTTP at http://127.0.0.1:PORT/mcp
    # (the SDK's default: SSE answers, sessions, no event store); `--json` answers JSON.
    import argparse

    parser = argparse.ArgumentParser(description="the tour server, on stdio or Streamable HTTP")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on this port")
    parser.add_argument("--json", action="store_true", help="with --http: answer JSON, not SSE")
    parser.add_argument(
        "--event-store", action="store_true", help="with --http: keep events for resumption (Last-Event-ID)"
    )
    options = parser.parse_args()
    if options.http is None:
        build_server().run("stdio")
    else:
        build_server().run(
            "streamable-http",
            host="127.0.0.1",
            port=options.http,
            json_response=options.json,
            event_store=MemoryEventStore() if options.event_store else None,
        )
