#!/usr/bin/env python3
"""Code footprint of callgrind runs: how much distinct machine code a run executed.

    scripts/footprint.py N OUT...   # callgrind outputs made with --dump-instr=yes

For each output: the instructions executed, the distinct 64-byte lines and 4 KiB pages of
code they came from (every object: the binary and the C library), and the lines executed
at least N times (for a session of N calls, its per-call path and its loops over the
fixture's lines; with N = 1, every line).
One line of tab-separated values per output: name, instructions, lines, pages, hot lines,
hot pages. `scripts/footprint.sh` runs the benchmarks and prints the table;
docs/PERFORMANCE.md says why the figure matters ("the clock follows the code
a session runs").
"""

import re
import sys

ADDRESS = re.compile(r"^(0x[0-9a-fA-F]+|[+-](?:0x[0-9a-fA-F]+|\d+)|\*|\d+)(?:\s|$)")
NAMED = re.compile(r"^c?ob=\((\d+)\)(?: (.*))?")


def number(text):
    return int(text, 16) if text.startswith("0x") else int(text)


def executed(path):
    """{(object, address): times executed} and the total instruction count."""
    objects, current, counts, total = {}, None, {}, 0
    last, skip_next = 0, False
    with open(path) as lines:
        for line in lines:
            named = NAMED.match(line)
            if named:
                key, name = named.groups()
                if name:
                    objects[key] = name.strip()
                if line.startswith("ob="):
                    current = objects.get(key)
                continue
            if line.startswith("calls="):
                # The next cost line is the call's inclusive cost, not this code's.
                skip_next = True
                continue
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
                continue
            position = ADDRESS.match(line)
            if not position:
                continue
            field = position.group(1)
            if field == "*":
                address = last
            elif field[0] == "+":
                address = last + number(field[1:])
            elif field[0] == "-":
                address = last - number(field[1:])
            else:
                address = number(field)
            last = address
            if skip_next:
                skip_next = False
                continue
            cost = line.split()
            times = int(cost[-1]) if len(cost) >= 3 else 0
            if times > 0:
                key = (current, address)
                counts[key] = counts.get(key, 0) + times
    return counts, total


def footprint(path, hot):
    counts, total = executed(path)
    lines = {}
    for (obj, address), times in counts.items():
        key = (obj, address >> 6)
        lines[key] = max(lines.get(key, 0), times)
    pages = {(obj, line >> 6) for obj, line in lines}
    hot_lines = [key for key, times in lines.items() if times >= hot]
    hot_pages = {(obj, line >> 6) for obj, line in hot_lines}
    return total, len(lines), len(pages), len(hot_lines), len(hot_pages)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: footprint.py N CALLGRIND_OUT...")
    hot = int(sys.argv[1])
    for path in sys.argv[2:]:
        figures = footprint(path, hot)
        print("\t".join([path, *map(str, figures)]))


if __name__ == "__main__":
    main()
