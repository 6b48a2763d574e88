use super::*;

fn fixture(lines: &[Value]) -> Fixture {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    Fixture::parse(&text).unwrap()
}

fn c(method: &str, params: Value) -> Value {
    json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": method, "params": params}})
}

fn s(result: Value) -> Value {
    json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": result}})
}

fn error() -> Value {
    json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "error": {"code": -32602, "message": "no"}}})
}

fn listing() -> Fixture {
    fixture(&[
        c(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        ),
        s(
            json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"},
            "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true}, "logging": {}, "prompts": {}}}),
        ),
        c("tools/list", json!({})),
        s(json!({"tools": [
            {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {}, "loud": {}, "times": {}}, "required": ["text"]}},
            {"name": "divide", "inputSchema": {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"]}},
            {"name": "never", "inputSchema": {"type": "object"}}
        ], "nextCursor": "2"})),
        c("prompts/list", json!({})),
        s(
            json!({"prompts": [{"name": "greet", "arguments": [{"name": "who", "required": true}, {"name": "tone"}]}]}),
        ),
        c("resources/list", json!({})),
        s(
            json!({"resources": [{"uri": "file:///README", "name": "r"}, {"uri": "file:///LICENSE", "name": "l"}]}),
        ),
        c("resources/templates/list", json!({})),
        s(
            json!({"resourceTemplates": [{"uriTemplate": "issue://{id}", "name": "i"}, {"uriTemplate": "file:///{+path}", "name": "f"}]}),
        ),
    ])
}

#[test]
fn the_surface_comes_from_the_handshake_and_the_listings() {
    let surface = Surface::of(&[&listing()]);
    let names: Vec<&str> = surface.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "divide", "never"]);
    assert_eq!(surface.tools[0].required, ["text"]);
    assert_eq!(surface.tools[0].optional, ["loud", "times"]);
    assert_eq!(surface.prompts[0].optional, ["tone"]);
    assert_eq!(surface.resources, ["file:///README", "file:///LICENSE"]);
    assert_eq!(surface.templates, ["issue://{id}", "file:///{+path}"]);
    let caps: Vec<&str> = surface.capabilities.iter().map(String::as_str).collect();
    assert_eq!(
        caps,
        [
            "logging",
            "prompts",
            "resources",
            "resources.subscribe",
            "tools",
            "tools.listChanged"
        ]
    );
    assert!(surface.truncated.contains("tools/list"));
}

#[test]
fn calls_errors_optional_arguments_reads_and_kinds_are_counted() {
    let session = fixture(&[
        c(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi", "loud": true}}),
        ),
        s(json!({"content": []})),
        c(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
        s(json!({"content": [], "isError": true})),
        c(
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 1, "b": 0}}),
        ),
        error(),
        c("tools/call", json!({"name": "gone", "arguments": {}})),
        error(),
        c("resources/read", json!({"uri": "issue://42"})),
        s(json!({"contents": []})),
        c("resources/read", json!({"uri": "file:///docs/a.md"})),
        s(json!({"contents": []})),
        c("logging/setLevel", json!({"level": "info"})),
        s(json!({})),
        json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": 1}}}),
        json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": "<SERVER_REQUEST_ID:1>", "method": "roots/list"}}),
        json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "<SERVER_REQUEST_ID:1>", "result": {"roots": []}}}),
    ]);
    let surface = Surface::of(&[&listing()]);
    let coverage = Coverage::of(&surface, &[&session]);
    let echo = &coverage.tools[0];
    assert_eq!((echo.calls, echo.errors), (2, 1));
    assert_eq!(echo.optional_passed, ["loud"]);
    assert_eq!(echo.optional_never, ["times"]);
    assert_eq!((coverage.tools[1].calls, coverage.tools[1].errors), (1, 1));
    assert_eq!(coverage.tools[2].calls, 0);
    assert_eq!(coverage.resources[0].reads, 0);
    assert_eq!(coverage.templates[0].reads, 1);
    assert_eq!(coverage.templates[1].reads, 1);
    assert!(coverage.not_advertised.contains("tools/call gone"));
    assert!(coverage.server_requests.contains("roots/list"));
    assert!(coverage
        .notifications
        .contains("server->client notifications/message"));
    // echo, divide, 2 templates of 3 tools + 1 prompt + 2 resources + 2 templates.
    assert_eq!(coverage.counts(), (4, 8));
    assert_eq!(coverage.percent(), 50.0);
    let logging = coverage
        .capabilities
        .iter()
        .find(|c| c.capability == "logging")
        .unwrap();
    assert!(logging.exercised);
    let subscribe = coverage
        .capabilities
        .iter()
        .find(|c| c.capability == "resources.subscribe")
        .unwrap();
    assert!(!subscribe.exercised);
    let text = coverage.to_string();
    assert!(text.contains("tools: 2 of 3 called"), "{text}");
    assert!(text.contains("optional never passed: times"), "{text}");
    assert!(text.contains("coverage: 50% (4 of 8"), "{text}");
    assert_eq!(coverage.to_json()["percent"], 50.0);
}

#[test]
fn templates_match_as_rfc_6570_simple_and_reserved_expansions() {
    assert!(template_matches("issue://{id}", "issue://42"));
    assert!(!template_matches("issue://{id}", "issue://"));
    assert!(!template_matches("issue://{id}", "issue://4/2"));
    assert!(template_matches("file:///{+path}", "file:///a/b.md"));
    assert!(template_matches("demo://{a}/x/{b}", "demo://1/x/2"));
    assert!(!template_matches("demo://{a}/x/{b}", "demo://1/y/2"));
    assert!(template_matches("plain://one", "plain://one"));
}

#[test]
fn the_probe_asks_for_the_surface_in_either_era() {
    let legacy = probe(Era::Legacy, &json!({}));
    let methods: Vec<&str> = legacy.entries().iter().filter_map(Entry::method).collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "prompts/list",
            "resources/list",
            "resources/templates/list"
        ]
    );
    let stateless = probe(Era::Stateless, &json!({"sampling": {}}));
    assert_eq!(stateless.era(), Era::Stateless);
    assert_eq!(stateless.entries()[0].method(), Some("server/discover"));
    let a = fixture(&[c(
        "initialize",
        json!({"capabilities": {"roots": {"listChanged": true}}}),
    )]);
    let b = fixture(&[c(
        "initialize",
        json!({"capabilities": {"sampling": {}, "roots": {}}}),
    )]);
    assert_eq!(
        client_capabilities(&[&a, &b]),
        json!({"roots": {"listChanged": true}, "sampling": {}})
    );
}
