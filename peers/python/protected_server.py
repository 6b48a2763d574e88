"""A Python `mcp` SDK server behind bearer-token auth, over Streamable HTTP (the SDK's own
token verification: `MCPServer(token_verifier=..., auth=AuthSettings(...))`).

A request without `Authorization: Bearer <token>`, or with another token, gets the SDK's
401 with `WWW-Authenticate: Bearer ... resource_metadata="<URL>"`; the protected-resource
metadata is served at that URL. The one token it accepts is the second argument.

Tools:
  list_issues(limit) -> text "issue 1" ... "issue <limit>", one a line
  whoami()           -> text "signed in with <token>": a server that echoes the credential

Usage: python protected_server.py PORT TOKEN
"""

from __future__ import annotations

import sys

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer


class OneToken:
    """Accepts exactly one token (a stand-in for an introspection call)."""

    def __init__(self, token: str) -> None:
        self.token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        if token != self.token:
            return None
        return AccessToken(token=token, client_id="mcp-replay-tests", scopes=["issues:read"])


def build_server(port: int, token: str) -> MCPServer:
    server = MCPServer(
        "issues",
        version="1.0.0",
        log_level="WARNING",
        token_verifier=OneToken(token),
        auth=AuthSettings(
            issuer_url="http://127.0.0.1:9/",
            resource_server_url=f"http://127.0.0.1:{port}/mcp",
            required_scopes=["issues:read"],
        ),
    )

    @server.tool(description="List the latest issues.", structured_output=False)
    def list_issues(limit: int) -> str:
        return "\n".join(f"issue {i}" for i in range(1, limit + 1))

    @server.tool(description="Who the request is signed in as.", structured_output=False)
    def whoami() -> str:
        token = get_access_token()
        return f"signed in with {token.token if token else 'nothing'}"

    return server


if __name__ == "__main__":
    port = int(sys.argv[1])
    build_server(port, sys.argv[2]).run("streamable-http", host="127.0.0.1", port=port)
