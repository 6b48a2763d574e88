#!/usr/bin/env python3
"""Turns one revision of the MCP specification's JSON Schema into the compact form the
runtime checks protocol validity against (mcp-replay/schema/REVISION.defs; docs/protocol.md).

    python3 scripts/compact-schema.py PATH/TO/schema/2025-11-25/schema.json 2025-11-25 [COMMIT]

PATH is `schema/<revision>/schema.json` of the specification's repository
(github.com/modelcontextprotocol/modelcontextprotocol). The output keeps the structure only:
every keyword that constrains an instance ($ref, type, properties, required,
additionalProperties, items, enum, const, anyOf, oneOf, allOf, format, minimum, maximum,
minItems, maxItems, ...), none that only describes (description, title, $comment,
examples, default). One definition a line, `NAME<TAB>JSON`, sorted by name, after a first
line naming the source: the runtime finds a definition by its name and parses it only when
a message needs it. A new revision is this command and one line in the runtime's table of
revisions (analyses/validate/schema.rs, REVISIONS).
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
    lines = [
        f"# modelcontextprotocol/modelcontextprotocol schema/{revision}/schema.json at "
        f"{commit} (MIT or Apache-2.0), structure only: scripts/compact-schema.py"
    ]
    for name in sorted(definitions):
        if "\t" in name or "\n" in name:
            sys.exit(f"{source}: a definition name with a tab or a newline: {name!r}")
        text = json.dumps(compact(definitions[name]), separators=(",", ":"), sort_keys=True)
        lines.append(f"{name}\t{text}")
    out = f"mcp-replay/schema/{revision}.defs"
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {len(definitions)} definitions, {sum(len(l) + 1 for l in lines)} bytes")


if __name__ == "__main__":
    main()
