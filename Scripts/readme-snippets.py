#!/usr/bin/env python3
"""Writes README.md's examples as a package that compiles each of them (Scripts/readme.sh builds it).

Usage: readme-snippets.py README OUT CLONE > LIST
       readme-snippets.py --report BUILD_LOG BUILD_STATUS LIST
       readme-snippets.py --commands README OUT > LIST

Every Swift block after a `<!-- readme-check: NAME -->` line becomes the executable target NAME
of the package OUT (a target's `main.swift` allows the top-level statements an example is made
of): first Scripts/readme/NAME.swift, which declares the names the example takes as given
(an `AppState`, a `path`), then the block as written, behind a `#sourceLocation` so that an error
names README.md's line. The block's `…` (code left out) becomes `()`. The examples are compiled,
never run: a value they take as given without showing how it is made is `readmeUnavailable()`.

`NAME` = `one-module` is a manifest fragment (a package dependency line and a comment naming the
target's dependency): it becomes a dependency of OUT's manifest, with its path pointed at CLONE,
and a target that imports the module.

Prints one line per example: "NAME LINE" (the README line of its first line of code).
With --report, reads that list and the build's log and prints "PASS …" or "FAIL …" per example,
each failure after its errors.
"""

import os
import re
import sys



def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        file.write(text)


def report(log_path, status, list_path):
    """Prints PASS or FAIL per example, from the build of the package written earlier."""
    with open(list_path) as file:
        examples = [(name, int(line)) for name, line in (row.split() for row in file if row.strip())]
    with open(log_path) as file:
        log = file.read().splitlines()
    errors = {name: [] for name, _ in examples}
    unattributed = []
    for line in log:
        if ": error:" not in line:
            continue
        in_readme = re.search(r"README\.md:(\d+):", line)
        in_target = re.search(r"/Sources/([a-z-]+)/[A-Za-z]+\.swift:", line)
        if in_readme:
            number = int(in_readme.group(1))
            owner = max((e for e in examples if e[1] <= number), key=lambda e: e[1], default=None)
            (errors[owner[0]] if owner else unattributed).append(line)
        elif in_target and in_target.group(1) in errors:
            errors[in_target.group(1)].append(line)
        else:
            unattributed.append(line)
    for name, first in examples:
        if errors[name]:
            print("\n".join(sorted(set(errors[name]))))
            print(f"FAIL README: the example at line {first} ({name}) does not compile")
        elif status == "0":
            print(f"PASS README: the example at line {first} ({name}) compiles")
        else:
            # NB: the build stops at the first errors, so this one may not have been compiled.
            print(f"readme: not known yet whether the example at line {first} ({name}) compiles")
    if status != "0" and not any(errors.values()):
        print("\n".join(unattributed or log[-30:]))
        print("FAIL README: the examples' package does not build (above)")


def commands(readme, out):
    """Writes each ```bash or ```sh block of README as OUT/line-N.sh, ready for readme.sh to run.

    Two changes, each for a reason: `Scripts/test.sh` is not run (it is what runs this), and a
    command sent to the background (`&`) runs with README_BACKGROUND=1, followed, when it names
    a `--port`, by a wait until that port accepts connections (a person starts the next command
    once the server says it listens; a script must wait as they do).
    """
    with open(readme) as file:
        lines = file.read().split("\n")
    language = None
    for number, line in enumerate(lines, start=1):
        if language is None and line in ("```bash", "```sh"):
            language, first, code = line[3:], number + 1, []
        elif language is not None and line == "```":
            write(f"{out}/line-{first}.sh", "\n".join(code) + "\n")
            print(first, f"{out}/line-{first}.sh")
            language = None
        elif language is not None:
            if re.match(r"\s*Scripts/test\.sh\b", line):
                code.append(": Scripts/test.sh is what runs this")
                continue
            background = re.fullmatch(r"(.*)&\s*(#.*)?", line)
            if background and not background.group(1).rstrip().endswith("&"):
                code.append(f"README_BACKGROUND=1 {background.group(1).strip()} &")
                port = re.search(r"--port (\d+)", line)
                if port:
                    code.append(f"readme_wait_for_port {port.group(1)}")
            else:
                code.append(line)


if sys.argv[1] == "--report":
    report(*sys.argv[2:5])
    sys.exit(0)
if sys.argv[1] == "--commands":
    commands(*sys.argv[2:4])
    sys.exit(0)

readme, out, clone = sys.argv[1:4]
preludes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "readme")


def blocks(lines):
    """Yields (name, first line number, code lines) for each marked Swift block."""
    name = None
    for number, line in enumerate(lines, start=1):
        marker = re.fullmatch(r"<!-- readme-check: ([a-z-]+) -->", line)
        if marker:
            name = marker.group(1)
            continue
        if name and line == "```swift":
            code = []
            for inner in lines[number:]:
                if inner == "```":
                    break
                code.append(inner)
            yield name, number + 1, code
            name = None
        elif name and line.strip():
            sys.exit(f"readme-snippets: the readme-check {name} line is not before a ```swift block")


with open(readme) as file:
    lines = file.read().split("\n")

support = (
    "// README.md's examples are compiled, never run: a value one takes as given without\n"
    "// showing how it is made comes from here.\n"
    'func readmeUnavailable<T>() -> T { fatalError("README examples are compiled, not run") }\n'
)
targets = []
dependencies = []
for name, first, code in blocks(lines):
    if name == "one-module":
        dependency = code[0].rstrip(",").replace("path/to/ReduxKit", clone)
        product = re.fullmatch(r"// target: (.*)", code[1].strip())
        if not product:
            sys.exit("readme-snippets: the one-module fragment's second line is not '// target: …'")
        dependencies.append(dependency)
        module = re.search(r'name: "([^"]+)"', product.group(1)).group(1)
        targets.append(f'.executableTarget(name: "{name}", dependencies: [{product.group(1)}])')
        write(f"{out}/Sources/{name}/main.swift", f"import {module}\n")
    else:
        prelude_path = os.path.join(preludes, f"{name}.swift")
        with open(prelude_path) as file:
            prelude = file.read()
        body = "\n".join(code).replace("…", "()")
        write(
            f"{out}/Sources/{name}/main.swift",
            f'{prelude}\n#sourceLocation(file: "README.md", line: {first})\n{body}\n#sourceLocation()\n',
        )
        write(f"{out}/Sources/{name}/Support.swift", support)
        products = ['.product(name: "ReduxKit", package: "ReduxKit")']
        if "import DevToolsServer" in prelude:
            products.append('.product(name: "DevToolsServer", package: "DevToolsServer")')
        targets.append(f'.executableTarget(name: "{name}", dependencies: [{", ".join(products)}])')
    print(name, first)

separator = ",\n    "
manifest = f"""// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "ReadmeExamples",
  platforms: [.macOS(.v15), .iOS(.v18)],
  dependencies: [
    .package(name: "ReduxKit", path: "{clone}"),
    .package(name: "DevToolsServer", path: "{clone}/Packages/DevToolsServer"),
    {separator.join(dependencies)}
  ],
  targets: [
    {separator.join(targets)}
  ]
)
"""
write(f"{out}/Package.swift", manifest)
