#!/usr/bin/env python3
"""Lists the public declarations of one module that have no doc comment.

Usage: doc-coverage.py MODULE SOURCE_DIR SYMBOL_GRAPH_DIR [PENDING_NAME ...]

Reads MODULE.symbols.json and MODULE@*.symbols.json (its extensions of other modules' types) in
SYMBOL_GRAPH_DIR, as `swift package dump-symbol-graph` writes them, and prints one line
`file:line: undocumented kind Module.Name` for every public or open symbol declared under
SOURCE_DIR that carries no doc comment. Exits 1 when it prints any, 0 otherwise.

A PENDING_NAME (`Module.Type.member`, as printed) is a known gap that is being documented
elsewhere: it is printed as pending and does not fail the check. A pending name that is
documented now is reported, so that the list can shrink.

Not counted, because their documentation comes from elsewhere:
- the extension blocks of extensions to other modules' types (their members are counted);
- members the compiler synthesizes from a protocol extension (`::SYNTHESIZED::` identifiers);
- implementations of a protocol requirement or overrides that have no comment of their own: the
  symbol graph then carries the requirement's comment (its `module` or `uri` names the
  protocol's), which DocC shows, so they count as documented.
"""

import json
import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    module, source_dir, graph_dir = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3])
    pending = {name for name in sys.argv[4:] if name.startswith(f"{module}.")}
    graphs = [graph_dir / f"{module}.symbols.json", *sorted(graph_dir.glob(f"{module}@*.symbols.json"))]
    if not graphs[0].is_file():
        print(f"doc-coverage: {graphs[0]} is missing", file=sys.stderr)
        return 2

    missing = set()
    for graph in graphs:
        with graph.open(encoding="utf-8") as file:
            symbols = json.load(file)["symbols"]
        for symbol in symbols:
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue  # the block of an extension to another module's type: its members count
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            uri = symbol.get("location", {}).get("uri")
            if uri is None:
                continue
            path = Path(unquote(urlparse(uri).path))
            if source_dir not in path.parents:
                continue
            lines = symbol.get("docComment", {}).get("lines", [])
            if any(line.get("text", "").strip() for line in lines):
                continue
            line = symbol["location"]["position"]["line"] + 1
            kind = symbol["kind"]["displayName"].lower()
            name = f"{module}." + ".".join(symbol["pathComponents"])
            missing.add((os.path.relpath(path), line, kind, name))

    failures = 0
    for path, line, kind, name in sorted(missing):
        if name in pending:
            print(f"{path}:{line}: undocumented {kind} {name} (pending: not failing)")
        else:
            print(f"{path}:{line}: undocumented {kind} {name}")
            failures += 1
    for name in sorted(pending - {name for _, _, _, name in missing}):
        print(f"doc-coverage: {name} is documented now (or gone): drop it from the pending list")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
