#!/usr/bin/env python3
"""What an open DevTools page costs a growing board: N cards added in line mode, without
DevTools and with `--devtools` and a listener on its live stream (`/api/events`, as the page
listens), in interleaved rounds on fresh files. Prints each round's wall time and the ratio of
the medians.

Usage: Benchmarks/devtools-listener.py BOARD_BINARY [CARDS] [ROUNDS]   (2,000 cards, 3 rounds)
A release board gives the figures that matter (swift build -c release --product board
--traits DevToolsServer); a debug one works too.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def run(board, cards, devtools):
    """Seconds from the first command to the last reply, on a fresh board file."""
    folder = tempfile.mkdtemp(prefix="devtools-listener-")
    command = [board, "--lines", "--db", os.path.join(folder, "board.sqlite")]
    if devtools:
        command.append("--devtools")
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, bufsize=1)
    received = []
    if devtools:
        # The page's address comes on standard error; a listener attaches before the first add.
        while True:
            line = process.stderr.readline()
            if not line:
                raise RuntimeError("the board ended before it printed its DevTools address")
            if line.startswith("DevTools: "):
                url = line.split(" ", 1)[1].strip()
                break
        base, _, query = url.partition("?")
        stream = urllib.request.urlopen(base + "api/events?" + query)
        stream.readline()  # ": open": the stream is listened to

        def listen():
            for line in stream:
                received.append(len(line))

        threading.Thread(target=listen, daemon=True).start()
    start = time.perf_counter()
    for card in range(1, cards + 1):
        process.stdin.write(f"add Todo card {card}\n")
    process.stdin.flush()
    replies = 0
    while replies < cards:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the board ended after {replies} replies")
        if line.startswith("added "):
            replies += 1
    elapsed = time.perf_counter() - start
    process.stdin.close()
    process.wait(timeout=60)
    if devtools and not received:
        raise RuntimeError("the listener received nothing")
    return elapsed, sum(received)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    board = sys.argv[1]
    cards = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    plain, listened = [], []
    for round_number in range(1, rounds + 1):
        without, _ = run(board, cards, devtools=False)
        with_page, streamed = run(board, cards, devtools=True)
        plain.append(without)
        listened.append(with_page)
        print(f"round {round_number}: {cards} adds without DevTools {without:.2f} s, with a page "
              f"listening {with_page:.2f} s ({streamed / 1024:.0f} KB streamed)")
    ratio = statistics.median(listened) / statistics.median(plain)
    print(f"median: without {statistics.median(plain):.2f} s, listened {statistics.median(listened):.2f} s: "
          f"{ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
