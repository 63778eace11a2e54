#!/usr/bin/env python3
"""The DevTools page in a real browser, as a person uses it.

Starts `reduxkit-devtools-demo` (a recorded notes app serving its DevTools page on a free
loopback port, with a token), then headless Chromium, and drives the page through Chromium's
remote-debugging protocol (a WebSocket; the protocol client below uses the standard library
only): the timeline lists the dispatched actions; clicking a row shows its diff; an action
dispatched later appears live; "jump" changes the live app's state (the demo prints its state)
and "resume" brings the present back; a request without the token is refused; a page on another
origin (another port of 127.0.0.1, knowing the token or not) can neither drive the app nor read
its records. Each check waits
for what a person would see (up to 20 s). A screenshot of the page is saved. Last, a page over
a long timeline (DEVTOOLS_SCALE records, 10,000 unless set): the first rows show while the rest
load, only the rows in view are drawn, a row's diff comes for it alone, the filter searches
payloads; the time each took in the page is printed ("timing: …").

With --board, the same page over the board app instead (`board --lines --devtools`, its
commands typed on standard input): the timeline shows the board's actions, a move's diff says
which column the card left, and "jump" shows a past board to the board's own `list` command
until "resume".

Usage: Scripts/devtools-browser.py DEMO_BINARY [SCREENSHOT.png]
       Scripts/devtools-browser.py --board BOARD_BINARY [SCREENSHOT.png]
Prints one line per check ("PASS …" / "FAIL …") and ends with "N passed, N failed".
"""

import base64
import json
import os
import queue
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request


class WebSocket:
    """Just enough of RFC 6455 for the remote-debugging protocol: text frames, masked sends."""

    def __init__(self, url):
        assert url.startswith("ws://")
        host_port, _, path = url[5:].partition("/")
        host, _, port = host_port.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            response += self.sock.recv(1)
        if b" 101 " not in response.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"no WebSocket: {response!r}")

    def send(self, text):
        payload = text.encode()
        header = bytes([0x81])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _exactly(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise RuntimeError("the browser closed the connection")
            data += chunk
        return data

    def receive(self):
        message = b""
        while True:
            first, second = self._exactly(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._exactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._exactly(8))[0]
            payload = self._exactly(length)
            opcode = first & 0x0F
            if opcode in (0x1, 0x0):
                message += payload
                if first & 0x80:
                    return message.decode()
            # NB: pings and other control frames are not needed here.


class Browser:
    """Headless Chromium with one page, driven by the remote-debugging protocol."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="devtools-chromium-")
        binary = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if not binary:
            raise RuntimeError("no Chromium: apt-get install chromium")
        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
             "--window-size=1280,800", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.time() > deadline:
                raise RuntimeError("Chromium did not start")
            time.sleep(0.05)
        port = open(port_file).read().split()[0]
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(target for target in targets if target["type"] == "page")
        self.socket = WebSocket(page["webSocketDebuggerUrl"])
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, what):
        deadline = time.time() + 20
        value = None
        while time.time() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise RuntimeError(f"not within 20 s: {what} (last value {value!r})")

    def open_timeline(self, url, count):
        """Opens the page at `url`, waits for `count` rows, returns each row's "name outcome"."""
        self.call("Page.enable")
        self.call("Page.navigate", url=url)
        self.wait_for(f"document.querySelectorAll('#timeline tr.record').length >= {count}", "the timeline's rows")
        return self.evaluate(
            "Array.from(document.querySelectorAll('#timeline tr.record')).map(r => r.children[3].innerText + ' ' + r.children[4].innerText)")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)


class Demo:
    """The demo app: its page's address, and the states it prints."""

    def __init__(self, binary, *options):
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--token", "e2e-token", *options], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.states = []
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.time() + 300
        self.url = None
        while self.url is None:
            line = self.lines.get(timeout=max(deadline - time.time(), 0.1))
            if line.startswith("DevTools: "):
                self.url = line.split(" ", 1)[1]

    def _read(self):
        for line in self.process.stdout:
            line = line.rstrip("\n")
            if line.startswith("state: "):
                self.states.append(line[len("state: "):])
            self.lines.put(line)

    def send(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def wait_for_state(self, state):
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.states and self.states[-1] == state:
                return
            time.sleep(0.05)
        raise RuntimeError(f"the app never showed {state!r} (last: {self.states[-1:]})")

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class Board:
    """`board --lines --devtools`: commands on its standard input, replies on its output and
    errors on its standard error, read as one stream of lines."""

    def __init__(self, binary):
        self.folder = tempfile.mkdtemp(prefix="devtools-board-")
        self.process = subprocess.Popen(
            [binary, "--lines", "--db", os.path.join(self.folder, "board.sqlite"),
             "--devtools", "127.0.0.1:0", "--devtools-token", "e2e-token"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.replies = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        line = self.process.stderr.readline()
        if not line.startswith("DevTools: "):
            raise RuntimeError(f"board said {line!r} instead of the page's address")
        self.url = line.split(" ", 1)[1].strip()
        threading.Thread(target=self._read, args=(self.process.stderr,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.replies.put(line.rstrip("\n"))

    def run(self, command, until):
        """Types `command` and returns its reply's lines, up to the one containing `until`."""
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        deadline = time.time() + 20
        while not lines or until not in lines[-1]:
            lines.append(self.replies.get(timeout=max(deadline - time.time(), 0.1)))
        return "\n".join(lines)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=20)
        shutil.rmtree(self.folder, ignore_errors=True)


# Picks, as a person would in the file dialog, the session the page exports.
IMPORT_EXPORTED = """(async () => {
  const text = await (await fetch(api("/api/export"))).text();
  const files = new DataTransfer();
  files.items.add(new File([text], "NAME"));
  $("file").files = files.files;
  $("file").dispatchEvent(new Event("change"));
  return true;
})()"""

# What a page on another origin tries against the DevTools (BASE, with TOKEN when it learned it):
# the commands as plain POSTs (no preflight, the cookie sent: a page on another port of
# 127.0.0.1 is the same site), and reading the records.
FOREIGN_PAGE = """(async () => {
  const tried = {};
  for (const command of ["api/jump?index=1", "api/skip?index=1", "api/resume", "api/import?name=x"]) {
    for (const token of ["", "TOKEN"]) {
      const url = "BASE" + command + (token ? (command.includes("?") ? "&" : "?") + "token=" + token : "");
      try {
        await fetch(url, { method: "POST", mode: "no-cors", credentials: "include",
                           body: command.startsWith("api/import") ? "{}" : undefined });
        tried[url] = "sent";
      } catch (error) {
        tried[url] = "not sent";
      }
    }
  }
  for (const path of ["api/records", "api/records?token=TOKEN", "api/export?token=TOKEN"]) {
    try {
      const response = await fetch("BASE" + path, { credentials: "include" });
      tried[path] = "read " + (await response.text()).length + " bytes";
    } catch (error) {
      tried[path] = "unreadable";
    }
  }
  return tried;
})()"""


class ForeignSite:
    """Another site on this machine (another port of 127.0.0.1): a blank page to run scripts from."""

    def __init__(self):
        import http.server

        class Blank(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = b"<!doctype html><title>another site</title>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        # NB: a thread per connection: Chromium opens a connection ahead of need and leaves it
        # idle; one thread blocked reading it held shutdown() for a minute or more.
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Blank)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def travel_state(url):
    """The live app's time travel, as the DevTools API says with the token in `url`."""
    base, _, query = url.partition("?")
    with urllib.request.urlopen(base + "api/records?" + query) as response:
        return json.load(response)["travel"]


def foreign_origin_check(browser, url):
    """A page on another origin cannot jump, skip, resume or import, nor read the records,
    even knowing the token; the live app stays as it was."""
    foreign = ForeignSite()
    try:
        before = travel_state(url)
        browser.call("Page.navigate", url=foreign.url)
        browser.wait_for("document.title === 'another site'", "the other site's page")
        base, _, query = url.partition("?")
        token = query.split("token=", 1)[1]
        tried = browser.evaluate(FOREIGN_PAGE.replace("BASE", base).replace("TOKEN", token))
        read = {path: what for path, what in tried.items() if path.startswith("api/")}
        if any(what != "unreadable" for what in read.values()):
            raise RuntimeError(f"another origin read {read}")
        after = travel_state(url)
        if after != before or after.get("position") is not None or after["skipped"]:
            raise RuntimeError(f"another origin's commands changed the travel: {before} → {after}")
    finally:
        foreign.close()


# Picks a malformed session file: its second line is not a record.
IMPORT_MALFORMED = """(() => {
  const files = new DataTransfer();
  files.items.add(new File(['{"app":"notes","format":"reduxkit-devtools","version":1}\\nnot json\\n'], "bad.jsonl"));
  $("file").files = files.files;
  $("file").dispatchEvent(new Event("change"));
  return true;
})()"""


def board_checks(binary, screenshot, check):
    board = Board(binary)
    board.run('add Todo "Write docs"', "(saved)")
    board.run('add Todo "Fix the login bug"', "(saved)")
    board.run("move 2 Doing", "(saved)")
    browser = Browser()
    try:
        def timeline():
            names = browser.open_timeline(board.url, 4)
            if names[:4] != ["@start event", "addCard reduced", "addCard reduced", "moveCard reduced"]:
                raise RuntimeError(f"rows {names}")
            # A row says what the action touched, in the board's words.
            row = browser.evaluate("document.querySelector('tr[data-index=\"3\"]').innerText")
            if "#2 → column 2" not in row:
                raise RuntimeError(f"the move's row says {row!r}")

        def diff():
            browser.evaluate("document.querySelector('tr[data-index=\"3\"]').click()")
            browser.wait_for("document.getElementById('diff').innerText.includes('columnID')", "the diff of #3")
            text = browser.evaluate("document.getElementById('diff').innerText")
            if "~ cards[id=2].columnID: 1 → 2" not in text:
                raise RuntimeError(f"diff {text!r}")
            # A date is shown as a date beside the number it is recorded as.
            if not re.search(r"updatedAt: [0-9.]+ \(20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC\)", text):
                raise RuntimeError(f"no date shown as a date in {text!r}")
            timings = browser.evaluate("document.getElementById('timings').innerText")
            # The library's reducers are timed like the board's own.
            for stage in ("reducer board", "reducer undoHistory", "reducer persistence"):
                if stage not in timings:
                    raise RuntimeError(f"no {stage!r} in the timings {timings!r}")

        def jump():
            browser.evaluate("document.querySelector('tr[data-index=\"1\"]').click()")
            browser.evaluate("document.getElementById('jump').click()")
            browser.wait_for("document.getElementById('travel').innerText === 'paused at #1'", "paused at #1")
            listed = board.run("list", "Done (")
            if "Todo (1)" not in listed or "Fix the login bug" in listed:
                raise RuntimeError(f"the board lists {listed!r}")
            refused = board.run("add Todo lost", "error")
            if "time travel" not in refused:
                raise RuntimeError(f"a change while paused: {refused!r}")
            browser.screenshot(screenshot)
            browser.evaluate("document.getElementById('resume').click()")
            browser.wait_for("document.getElementById('travel').innerText === 'live'", "live again")
            listed = board.run("list", "Done (")
            if "Doing (1)" not in listed or "#2 Fix the login bug" not in listed:
                raise RuntimeError(f"the board lists {listed!r}")

        def export_import():
            # The session exported from the page, imported back as a file a person picks: the
            # start, three changes, and the resume's own action (its pass saves what the travel
            # changed).
            browser.evaluate(IMPORT_EXPORTED.replace("NAME", "board.jsonl"))
            browser.wait_for("document.getElementById('travel').innerText === 'imported board.jsonl: 5 records'",
                             "the imported session")
            if not browser.evaluate("document.getElementById('jump').disabled"):
                raise RuntimeError("the time travel controls are on for an imported session")
            browser.evaluate("document.querySelector('tr[data-index=\"3\"]').click()")
            browser.wait_for("document.getElementById('diff').innerText.includes('~ cards[id=2].columnID: 1 → 2')",
                             "the imported move's diff")
            browser.screenshot(screenshot.replace(".png", "-imported.png"))
            browser.evaluate("document.getElementById('live').click()")
            browser.wait_for("document.getElementById('travel').innerText === 'live'", "live again")

        check("the board's timeline shows its actions", timeline)
        check("clicking the board's move shows which column the card left, and its reducer's time", diff)
        check("jump shows the board a past board and refuses changes, resume the present", jump)
        check("the board's exported session imports back and shows its diffs", export_import)
        check("a page on another origin cannot drive the board or read its records",
              lambda: foreign_origin_check(browser, board.url))
    finally:
        browser.close()
        board.close()


def scale_check(binary, browser, count):
    """A page over `count` recorded edits (and the demo's dozen other records): the first rows
    show while the rest load, all of them arrive, a row's diff and state come for it alone, the
    filter searches payloads too. Prints how long each took in the page (performance.now())."""
    demo = Demo(binary, "--edits", str(count), "--capacity", str(count + 100))
    try:
        browser.call("Page.navigate", url=demo.url)
        browser.wait_for("window.devtoolsTimings && window.devtoolsTimings.firstRows !== undefined",
                         "the first rows")
        deadline = time.time() + 120
        while browser.evaluate("window.devtoolsTimings.allRows === undefined"):
            if time.time() > deadline:
                raise RuntimeError("the timeline did not finish loading within 120 s")
            time.sleep(0.1)
        total = browser.evaluate("records.length")
        if total < count:
            raise RuntimeError(f"{total} rows for {count} edits")
        drawn = browser.evaluate("document.querySelectorAll('#timeline tr.record').length")
        if drawn > 200:
            raise RuntimeError(f"{drawn} rows drawn: only those in view should be")
        middle = browser.evaluate("records[Math.floor(records.length / 2)].index")
        diff_ms = browser.evaluate(
            f"(async () => {{ const start = performance.now(); await select({middle}); "
            f"return performance.now() - start; }})()")
        diff = browser.evaluate("document.getElementById('diff').innerText")
        state = browser.evaluate("document.getElementById('state').innerText")
        if "take" not in diff or "call Ada" not in state:
            raise RuntimeError(f"record #{middle}: diff {diff[:200]!r}, state {state[:200]!r}")
        # A payload's text, typed into the filter: one keystroke's work, timed in the page.
        wanted = f"take {count // 3}"
        filter_ms = browser.evaluate(
            "(() => { const field = document.getElementById('filter'); "
            f"field.value = {json.dumps(wanted)}; const start = performance.now(); "
            "field.dispatchEvent(new Event('input')); return performance.now() - start; })()")
        kept = browser.evaluate("shown.length")
        if kept != 1:
            raise RuntimeError(f"the filter {wanted!r} kept {kept} rows, not the one edit")
        first = browser.evaluate("window.devtoolsTimings.firstRows")
        every = browser.evaluate("window.devtoolsTimings.allRows")
        print(f"timing: {total} records: first rows {first:.0f} ms after the page opened, all "
              f"{every:.0f} ms; a row's diff and state {diff_ms:.0f} ms; a filter keystroke "
              f"{filter_ms:.1f} ms")
    finally:
        demo.close()


def main():
    arguments = sys.argv[1:]
    on_board = arguments[:1] == ["--board"]
    arguments = arguments[1:] if on_board else arguments
    if not arguments:
        print("\n".join(__doc__.strip().splitlines()[-4:-1]))
        return 2
    screenshot = arguments[1] if len(arguments) > 1 else os.path.join(
        tempfile.gettempdir(), "devtools-board.png" if on_board else "devtools-page.png")
    passed = failed = 0

    def check(name, body):
        nonlocal passed, failed
        try:
            body()
            print(f"PASS {name}")
            passed += 1
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next check runs
            print(f"FAIL {name}: {error}")
            failed += 1

    if on_board:
        board_checks(arguments[0], screenshot, check)
        print(f"screenshot: {screenshot}")
        print(f"{passed} passed, {failed} failed")
        return 0 if failed == 0 else 1

    demo = Demo(arguments[0])
    browser = Browser()
    try:
        def timeline():
            names = browser.open_timeline(demo.url, 12)
            expected = ["@start event", "add reduced", "add reduced", "add reduced", "edit reduced",
                        "delete reduced", "add stopped (refuseEmpty)", "fetch event", "fetched event",
                        "hit event", "invalidated event", 'set("report") event']
            if names[:12] != expected:
                raise RuntimeError(f"rows {names}")
            sources = browser.evaluate(
                "Array.from(document.querySelectorAll('#timeline tr.record')).map(r => r.children[2].innerText)")
            if sources[7] != "query" or sources[11] != "filter":
                raise RuntimeError(f"sources {sources}")
            queries = browser.evaluate("document.querySelector('#queries tbody').innerText")
            if "notes/count" not in queries or "invalidated" not in queries:
                raise RuntimeError(f"query cache {queries!r}")

        def diff():
            browser.evaluate("document.querySelector('tr[data-index=\"4\"]').click()")
            browser.wait_for(
                "document.getElementById('diff').innerText.includes('write the report, today')",
                "the diff of #4")
            text = browser.evaluate("document.getElementById('diff').innerText")
            if '~ [id=2].text: "write the report" → "write the report, today"' not in text:
                raise RuntimeError(f"diff {text!r}")
            timings = browser.evaluate("document.getElementById('timings').innerText")
            if "middleware refuseEmpty" not in timings or "reducer notes" not in timings:
                raise RuntimeError(f"timings {timings!r}")

        def live():
            demo.send("add 5 water the plants")
            browser.wait_for(
                "Array.from(document.querySelectorAll('#timeline tr.record')).some(r => r.innerText.includes('add') && r.dataset.index === '12')",
                "the new action's row")
            browser.evaluate("document.querySelector('tr[data-index=\"12\"]').click()")
            browser.wait_for("document.getElementById('state').innerText.includes('water the plants')", "its state")

        def jump():
            browser.evaluate("document.querySelector('tr[data-index=\"2\"]').click()")
            browser.evaluate("document.getElementById('jump').click()")
            browser.wait_for("document.getElementById('travel').innerText === 'paused at #2'", "paused at #2")
            demo.wait_for_state("buy milk | write the report")
            browser.screenshot(screenshot)
            browser.evaluate("document.getElementById('resume').click()")
            browser.wait_for("document.getElementById('travel').innerText === 'live'", "live again")
            demo.wait_for_state("write the report, today | call Ada | water the plants")

        def filter_():
            browser.evaluate("const f = document.getElementById('filter'); f.value = 'edit'; f.dispatchEvent(new Event('input'))")
            browser.wait_for("document.querySelectorAll('#timeline tr.record').length === 1", "one row for 'edit'")

        def malformed():
            browser.evaluate(IMPORT_MALFORMED)
            browser.wait_for("document.getElementById('error').innerText.includes('bad.jsonl: line 2')",
                             "the malformed file's line")
            if browser.evaluate("document.getElementById('travel').innerText") != "live":
                raise RuntimeError("a malformed import replaced the live timeline")

        def token():
            base, _, query = demo.url.partition("?")
            try:
                urllib.request.urlopen(base + "api/records")
                raise RuntimeError("answered without the token")
            except urllib.error.HTTPError as error:
                if error.code != 401:
                    raise RuntimeError(f"status {error.code}") from error
            # A name of an attacker's pointed at this address (DNS rebinding): refused, token or not.
            port = base.rsplit(":", 1)[1].strip("/")
            rebound = urllib.request.Request(
                base + "api/records?" + query, headers={"Host": f"evil.example:{port}"})
            try:
                urllib.request.urlopen(rebound)
                raise RuntimeError("answered a request addressed to evil.example")
            except urllib.error.HTTPError as error:
                if error.code != 421:
                    raise RuntimeError(f"evil.example: status {error.code}") from error

        check("the timeline shows the dispatched actions, the query events and the feature's", timeline)
        check("clicking a row shows its diff and its stages' timings", diff)
        check("an action dispatched later appears live", live)
        check("jump changes the live app's state, resume brings the present back", jump)
        check("the filter keeps the matching rows", filter_)
        check("a malformed session file is refused with its line, the live timeline kept", malformed)
        check("a request without the token, or addressed to another host, is refused", token)
        check("a page on another origin cannot drive the app or read its records",
              lambda: foreign_origin_check(browser, demo.url))
        count = int(os.environ.get("DEVTOOLS_SCALE", "10000"))
        check(f"a page over {count:,} records shows them at once, and a row's diff and the filter stay quick",
              lambda: scale_check(arguments[0], browser, count))
    finally:
        browser.close()
        demo.close()
    print(f"screenshot: {screenshot}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
