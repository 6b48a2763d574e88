#!/usr/bin/env python3
"""Turns one revision of the MCP specification's JSON Schema into the compact form the
runtime checks protocol validity against (mcp-replay/schema/REVISION.rs; docs/protocol.md).

    python3 scripts/compact-schema.py PATH/TO/schema/2025-11-25/schema.json 2025-11-25 [COMMIT]

PATH is `schema/<revision>/schema.json` of the specification's repository
(github.com/modelcontextprotocol/modelcontextprotocol). The output keeps the structure only:
every keyword that constrains an instance ($ref, type, properties, required,
additionalProperties, items, enum, const, anyOf, oneOf, allOf, format, minimum, maximum,
minItems, maxItems, ...), none that only describes (description, title, $comment,
examples, default), boolean schemas written as objects (`true` as `{}`, `false` as
`{"not": {}}`). It is data in a Rust literal, which the runtime includes
(analyses/validate/schema.rs): each definition as `(NAME, METHOD, JSON)`, sorted by name (the
object schemas inside a definition moved out into definitions of their own, `NAME.member`,
`NAME[]`, `NAME{}`, so that a message compiles only the parts it reaches),
METHOD its own `method` constant (a request's or a notification's) or empty; then each method
with the index of its first definition, sorted. The runtime finds a definition by its name or
its method with nothing to parse, and parses a definition's JSON only when a message needs
it. A new revision is this command and one line in the runtime's table of revisions
(REVISIONS).
"""

import json
import sys

DESCRIBES = {"description", "title", "$comment", "examples", "default", "deprecated"}
# Keywords whose value holds schemas keyed by a name (the names are data, not keywords).
NAMED = {"properties", "patternProperties", "$defs", "definitions"}
# Keywords whose value is a schema, or a list of schemas.
ONE = {"items", "additionalProperties", "not", "propertyNames", "contains", "if", "then", "else"}
MANY = {"anyOf", "oneOf", "allOf", "prefixItems"}


def compact(schema):
    # Boolean schemas as objects, which the runtime reads one way: `true` fits anything,
    # as `{}` does; `false` nothing, as `{"not": {}}` does.
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in DESCRIBES:
            continue
        if key in NAMED:
            out[key] = {name: compact(v) for name, v in value.items()}
        elif key in ONE:
            out[key] = compact(value)
        elif key in MANY:
            out[key] = [compact(v) for v in value]
        else:
            out[key] = value
    return out


def hoist(name, schema, rows):
    """`schema` (definition `name`, compacted) with each object schema below it that has
    properties of its own (a member's, an item's, an additional member's, not an
    alternative, whose name a finding may say) moved into a definition of its own,
    `NAME.member`, `NAME[]`, `NAME{}`, appended to `rows` as (name, schema) and left as a
    `$ref`: the runtime compiles a definition at its first use, so a value compiles only
    the parts of the schema it reaches (an `initialize` answer, not every capability)."""
    if not isinstance(schema, dict):
        return schema

    def moved(sub_name, sub):
        sub = hoist(sub_name, sub, rows)
        if isinstance(sub, dict) and "properties" in sub:
            rows.append((sub_name, sub))
            return {"$ref": f"#/$defs/{sub_name}"}
        return sub

    out = dict(schema)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: moved(f"{name}.{k}", v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = moved(f"{name}[]", out["items"])
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = moved(f"{name}{{}}", out["additionalProperties"])
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(out.get(key), list):
            out[key] = [hoist(f"{name}|{i}", v, rows) for i, v in enumerate(out[key])]
    return out


def rust(text):
    """`text` as a Rust raw string literal."""
    hashes = "#"
    while f'"{hashes}' in text:
        hashes += "#"
    return f'r{hashes}"{text}"{hashes}'


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    source, revision = sys.argv[1], sys.argv[2]
    commit = sys.argv[3] if len(sys.argv) == 4 else "unknown"
    with open(source, encoding="utf-8") as f:
        schema = json.load(f)
    definitions = schema.get("$defs")
    if not isinstance(definitions, dict) or not definitions:
        sys.exit(f"{source}: no $defs")
    hoisted = []
    for name in sorted(definitions):
        definition = hoist(name, compact(definitions[name]), hoisted)
        hoisted.append((name, definition))
    rows = []
    methods = {}
    for name, definition in sorted(hoisted):
        method = definition.get("properties", {}).get("method", {}).get("const", "")
        if not isinstance(method, str):
            sys.exit(f"{source}: {name}'s method is not a string: {method!r}")
        if name in definitions and method and method not in methods:
            methods[method] = len(rows)
        text = json.dumps(definition, separators=(",", ":"), sort_keys=True)
        rows.append((name, method if name in definitions else "", text))
    out = [
        f"// modelcontextprotocol/modelcontextprotocol schema/{revision}/schema.json at {commit}",
        "// (MIT or Apache-2.0), its structure only, written by scripts/compact-schema.py: data,",
        "// not code to edit. (NAME, METHOD, JSON) sorted by name; each METHOD with its first",
        "// definition.",
        "(",
        "    &[",
    ]
    for name, method, text in rows:
        out.append(f"        ({rust(name)}, {rust(method)}, {rust(text)}),")
    out += ["    ],", "    &["]
    for method in sorted(methods):
        out.append(f"        ({rust(method)}, {methods[method]}),")
    out += ["    ],", ")"]
    path = f"mcp-replay/schema/{revision}.rs"
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    size = sum(len(t) for _, _, t in rows)
    print(f"{path}: {len(rows)} definitions, {len(methods)} methods, {size} bytes of JSON")


if __name__ == "__main__":
    main()
