#!/usr/bin/env bash
# The board as a person uses it: `board` full screen in a detached tmux session on a temp
# database, keys sent with send-keys, the screen read with capture-pane. Scenarios: a scripted
# session (add three cards, move one, search, undo, quit) then a restart that shows the cards;
# kill -9 right after the status line says a change is saved, then a restart that shows it;
# SIGTERM right after a change (before its debounced save), then a restart that shows it; a
# terminal too narrow for the layout, then wide again; two boards on one board-server
# (`board --server`), each showing what the other changes; two boards on one SQLite file, in
# line mode (no add lost) and full screen (each shows the other's changes, a lost edit says so); `board --devtools --record`: the
# DevTools page's jump shows a past board on the screen (changes refused meanwhile), resume
# brings the present back, and `reduxkit-inspect` lists and diffs the recorded session; a
# 100,000-character paste (bracketed, as tmux pastes it) into a new card, the keys after it
# (their CPU time checked), the card view wrapping the title; a board of 10,000 cards paged,
# jumped to either end (CPU time checked) and searched. Each
# step waits for what a person would see (up to 20 s), never a fixed sleep.
#
# Usage: Scripts/board-e2e.sh [BOARD_BINARY [BOARD_SERVER_BINARY [INSPECT_BINARY]]]
#   (defaults: .build/debug/board, Examples/BoardServer/.build/debug/board-server and
#   Packages/DevTools/.build/debug/reduxkit-inspect, built if missing)
# Prints one line per scenario ("PASS name" / "FAIL name") and ends with "N passed, N failed".
set -uo pipefail

cd "$(dirname "$0")/.."
board=${1:-$(pwd)/.build/debug/board}
if [ ! -x "$board" ]; then swift build --product board >/dev/null || exit 1; fi
board_server=${2:-$(pwd)/Examples/BoardServer/.build/debug/board-server}
inspect=${3:-$(pwd)/Packages/DevTools/.build/debug/reduxkit-inspect}
command -v tmux >/dev/null || { echo "board-e2e: tmux is not installed"; exit 1; }

work=$(mktemp -d)
socket="$work/tmux.sock"
db="$work/board.sqlite"
passed=0
failed=0
tm() { tmux -S "$socket" "$@"; }
server_pid=
server_pids=()
database=
# NB: psql comes with the server Scripts/postgres.sh installs, on PATH or in its own folder.
psql=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -n 1)
cleanup() {
  tm kill-server 2>/dev/null
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  for pid in "${server_pids[@]}"; do { kill -9 "$pid" && wait "$pid"; } 2>/dev/null; done
  [ -n "$database" ] && "$psql" "$REDUXKIT_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
# NB: test.sh bounds the whole run (timeout): its TERM ends the run through the cleanup.
trap 'exit 124' TERM

# Starts the board full screen on $1 in a fresh 100x30 session named "board".
start_on() {
  target=board
  tm kill-session -t board 2>/dev/null
  tm new-session -d -s board -x 100 -y 30 \
    "$board --db '$1' --log '$work/board.log'; echo \"exit status \$?\"; sleep 600"
  wait_for "ReduxKit board · Board"
}

# Starts the board in a fresh 100x30 session named "board", on the scenarios' database.
start() { start_on "$db"; }

# The tmux session the helpers below read and type into.
target=board

screen() { tm capture-pane -p -t "$target"; }

# Waits until the screen shows the fixed string $1 (on a line matching $2 if given).
wait_for() {
  local deadline=$((SECONDS + 20))
  while [ $SECONDS -lt $deadline ]; do
    if screen | grep -F -- "$1" | grep -q -E -- "${2:-.}"; then return 0; fi
    sleep 0.05
  done
  echo "board-e2e: timed out waiting for '$1'; the screen shows:"
  screen | sed 's/^/  | /'
  return 1
}

keys() { tm send-keys -t "$target" "$@"; }
type_text() { tm send-keys -t "$target" -l -- "$1"; }

add_card() {
  keys n
  wait_for "New card"
  type_text "$1"
  wait_for "Title:  $1"
  keys Enter
  wait_for "added #$2 \"$1\""
}

scenario() {
  local name=$1; shift
  # NB: BOARD_E2E_ONLY=function runs one scenario (while working on it).
  [ -n "${BOARD_E2E_ONLY:-}" ] && [ "$1" != "$BOARD_E2E_ONLY" ] && return 0
  # NB: a scenario that failed may have left another session as the target.
  target=board
  if "$@"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    failed=$((failed + 1))
  fi
}

scripted_session() {
  start || return 1
  add_card "Write docs" 1 || return 1
  add_card "Fix bug" 2 || return 1
  add_card "Review docs" 3 || return 1
  # Move the selected card (the last one added) to Done.
  keys m
  wait_for "move #3 to: 1 Todo  2 Doing  3 Done" || return 1
  keys 3
  wait_for "moved #3 to Done" || return 1
  wait_for "Done (1)" || return 1
  # Search while typing: the results come once typing pauses.
  keys /
  wait_for "ReduxKit board · Search" || return 1
  type_text "docs"
  wait_for "2 card(s) match 'docs'" || return 1
  wait_for "#1 Write docs (Todo)" || return 1
  wait_for "#3 Review docs (Done)" || return 1
  keys Escape
  wait_for "ReduxKit board · Board" || return 1
  # Undo the move: the card is back in Todo.
  keys u
  wait_for "undone" || return 1
  wait_for "Todo (3)" || return 1
  wait_for "saved (flush" || return 1
  keys q
  wait_for "exit status 0" || return 1
  # Started again, the board shows what was saved.
  start || return 1
  wait_for "Todo (3)" || return 1
  wait_for "#3 Review docs" || return 1
  keys q
  wait_for "exit status 0"
}

killed_after_save() {
  start || return 1
  add_card "Survive kill -9" 4 || return 1
  # The status line says the change is saved: a kill -9 now must not lose it.
  wait_for "saved (flush" || return 1
  screen | grep -q "saving" && { echo "board-e2e: still saving"; return 1; }
  pkill -9 -f -- "--db $db" || return 1
  wait_for "exit status 137" || return 1
  start || return 1
  wait_for "#4 Survive kill -9" || return 1
  keys q
  wait_for "exit status 0"
}

terminated_before_the_debounce() {
  start || return 1
  add_card "Saved on SIGTERM" 5 || return 1
  # SIGTERM at once, before the debounced flush: the board saves, restores the terminal, exits.
  pkill -TERM -f -- "--db $db" || return 1
  wait_for "exit status 143" || return 1
  start || return 1
  wait_for "#5 Saved on SIGTERM" || return 1
  keys q
  wait_for "exit status 0"
}

narrow_terminal() {
  start || return 1
  tm resize-window -t board -x 24 -y 6
  wait_for "board needs 30x8" || return 1
  wait_for "this terminal: 24x6" || return 1
  tm resize-window -t board -x 44 -y 20
  wait_for "◀ Todo (5) 1/3 ▶" || return 1
  keys l
  wait_for "◀ Doing (0) 2/3 ▶" || return 1
  keys q
  wait_for "exit status 0"
}

# Two boards on one board-server (on SQLite) that wants a token: a board without it is
# refused; with it, a card added on one shows on the other, and a move made there shows back
# here, through the server's change feed.
two_boards_on_a_server() {
  if [ ! -x "$board_server" ]; then
    swift build --package-path Examples/BoardServer --product board-server >/dev/null || return 1
  fi
  local token=e2e-token-0123456789
  BOARD_SERVER_TOKEN=$token "$board_server" --port 0 --sqlite "$work/server.sqlite" \
    >"$work/server.out" 2>"$work/server.log" &
  server_pid=$!
  local port="" deadline=$((SECONDS + 20))
  while [ -z "$port" ] && [ $SECONDS -lt $deadline ]; do
    port=$(sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$work/server.out")
    [ -n "$port" ] || sleep 0.05
  done
  [ -n "$port" ] || { echo "board-e2e: board-server did not start"; cat "$work/server.log"; return 1; }
  local url="http://127.0.0.1:$port"
  if printf 'column add Todo\n' | timeout 60 "$board" --server "$url" --db "$work/refused-replica.sqlite" \
    --lines >"$work/refused.out" \
    2>"$work/refused.err"; then
    echo "board-e2e: a board without the server's token loaded the board"
    return 1
  fi
  grep -q "cannot load the board from $url.*token" "$work/refused.err" || {
    echo "board-e2e: a board without the token did not say why it was refused:"
    cat "$work/refused.err"
    return 1
  }
  printf 'column add Todo\ncolumn add Doing\ncolumn add Done\n' |
    BOARD_SERVER_TOKEN=$token timeout 60 "$board" --server "$url" --db "$work/lines-replica.sqlite" --lines \
      --log "$work/lines.log" >"$work/lines.out" || return 1
  local session
  for session in here there; do
    tm new-session -d -s "$session" -x 100 -y 30 \
      "BOARD_SERVER_TOKEN=$token $board --server '$url' --db '$work/$session-replica.sqlite' --log '$work/$session.log'; echo \"exit status \$?\"; sleep 600"
    target=$session
    wait_for "ReduxKit board · Board" || return 1
    wait_for "synced" || return 1
  done
  target=here
  add_card "Shared card" 1 || return 1
  target=there
  wait_for "#1 Shared card" || return 1
  keys m
  wait_for "move #1 to: 1 Todo  2 Doing  3 Done" || return 1
  keys 2
  wait_for "moved #1 to Doing" || return 1
  target=here
  wait_for "Doing (1)" || return 1
  wait_for "synced" || return 1
  for session in here there; do
    target=$session
    [ -n "${BOARD_E2E_SHOW:-}" ] && screen
    keys q
    wait_for "exit status 0" || return 1
  done
  target=board
}

# Starts board-server instance $1 at port $2 (0: any) in the background, on the SQLite file
# $work/$1.sqlite, or on PostgreSQL with DATABASE_URL=... as $3; its pid is $server_pid (and
# in $server_pids), its address $server_url.
start_board_server() {
  env ${3:+"$3"} "$board_server" --port "$2" --instance "$1" --sqlite "$work/$1.sqlite" \
    >"$work/$1.out" 2>>"$work/$1.log" &
  server_pid=$!
  server_pids+=("$server_pid")
  local port="" deadline=$((SECONDS + 30))
  while [ -z "$port" ] && [ $SECONDS -lt $deadline ]; do
    port=$(sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$work/$1.out")
    [ -n "$port" ] || sleep 0.05
  done
  [ -n "$port" ] || { echo "board-e2e: board-server $1 did not start"; cat "$work/$1.log"; return 1; }
  server_url="http://127.0.0.1:$port"
}

# Kills the board process of tmux session $1 with SIGKILL; its shell says so.
kill_board_in() {
  local shell board_pid
  shell=$(tm display-message -p -t "$1" '#{pane_pid}')
  board_pid=$(pgrep -P "$shell" -x board || pgrep -P "$shell")
  kill -9 "$board_pid"
}

# Offline first: the server is killed (-9) under a board, which keeps taking cards and says
# how many wait to be sent; the board itself is killed (-9) while offline and started again
# from its file, still offline, the cards there; the server comes back on its port, and the
# board sends them: the server holds every card the board said it saved.
offline_through_two_kills() {
  if [ ! -x "$board_server" ]; then
    swift build --package-path Examples/BoardServer --product board-server >/dev/null || return 1
  fi
  start_board_server offline-server 0 || return 1
  local url=$server_url port=${server_url##*:}
  printf 'column add Todo\ncolumn add Done\n' |
    timeout 60 "$board" --server "$url" --db "$work/offline-setup.sqlite" --lines >/dev/null || return 1
  local replica="$work/offline-replica.sqlite"
  target=offline
  tm new-session -d -s offline -x 100 -y 30 \
    "$board --server '$url' --db '$replica' --log '$work/offline.log'; echo \"exit status \$?\"; sleep 600"
  wait_for "Todo (0)" || return 1
  wait_for "synced" || return 1
  add_card "Sent at once" 1 || return 1
  wait_for "synced" || return 1
  kill -9 "$server_pid"
  wait "$server_pid" 2>/dev/null
  server_pid=
  add_card "Offline one" 2 || return 1
  wait_for "offline — 1 change(s) to send" || return 1
  add_card "Offline two" 3 || return 1
  wait_for "offline — 2 change(s) to send" || return 1
  kill_board_in offline
  wait_for "exit status 137" || return 1
  tm kill-session -t offline
  tm new-session -d -s offline -x 100 -y 30 \
    "$board --server '$url' --db '$replica' --log '$work/offline.log'; echo \"exit status \$?\"; sleep 600"
  wait_for "Offline two" || return 1
  wait_for "offline — 2 change(s) to send" || return 1
  start_board_server offline-server "$port" || return 1
  wait_for "synced" || return 1
  keys q
  wait_for "exit status 0" || return 1
  local listing
  listing=$(echo "list" | timeout 60 "$board" --server "$url" --db "$work/offline-check.sqlite" --lines) || return 1
  for title in "Sent at once" "Offline one" "Offline two"; do
    grep -q "$title" <<< "$listing" || {
      echo "board-e2e: the server lacks \"$title\"; a new board lists:"
      echo "$listing"
      return 1
    }
  done
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null
  server_pid=
  target=board
}

# Two boards on two board-server instances over one PostgreSQL database (the tests' own,
# REDUXKIT_POSTGRES_URL; skipped without it): the first board's server is killed (-9); that
# board edits a card offline while the second board deletes it, and adds another; the first
# board is killed (-9) while offline and started again from its file; its server comes back on
# its port. Every card the first board saved is in the database, its edit of the deleted card
# is shown as a conflict and kept on the board until K sends it, and both boards converge.
two_boards_two_servers_and_kills() {
  if [ -z "${REDUXKIT_POSTGRES_URL:-}" ]; then
    echo "board-e2e: no PostgreSQL (REDUXKIT_POSTGRES_URL unset): two servers skipped"
    return 0
  fi
  if [ ! -x "$board_server" ]; then
    swift build --package-path Examples/BoardServer --product board-server >/dev/null || return 1
  fi
  database="board_e2e_$$"
  "$psql" "$REDUXKIT_POSTGRES_URL" -qc "CREATE DATABASE $database" >/dev/null || return 1
  local url="DATABASE_URL=${REDUXKIT_POSTGRES_URL%/*}/$database"
  start_board_server pg-a 0 "$url" || return 1
  local a=$server_url a_pid=$server_pid
  start_board_server pg-b 0 "$url" || return 1
  local b=$server_url
  printf 'column add Todo\ncolumn add Done\n' |
    timeout 60 "$board" --server "$a" --db "$work/pg-setup.sqlite" --lines >/dev/null || return 1
  local session
  for session in pg-here pg-there; do
    local server=$a
    [ "$session" = pg-there ] && server=$b
    tm new-session -d -s "$session" -x 120 -y 30 \
      "$board --server '$server' --db '$work/$session.sqlite' --log '$work/$session.log'; echo \"exit status \$?\"; sleep 600"
    target=$session
    wait_for "Todo (0)" || return 1
  done
  target=pg-here
  add_card "Shared" 1 || return 1
  add_card "Kept here" 2 || return 1
  wait_for "synced" || return 1
  target=pg-there
  wait_for "#2 Kept here" || return 1

  kill -9 "$a_pid"
  wait "$a_pid" 2>/dev/null
  target=pg-here
  keys g e
  wait_for "Title:  Shared" || return 1
  keys BSpace BSpace BSpace BSpace BSpace BSpace
  wait_for "Title:" "Title: *$" || return 1
  type_text "Edited offline"
  keys Enter
  wait_for "#1 Edited offline" || return 1
  wait_for "offline — 1 change(s) to send" || return 1
  add_card "Made offline" 3 || return 1
  wait_for "offline — 2 change(s) to send" || return 1
  # The other board deletes the card this one edits.
  target=pg-there
  keys g d
  wait_for 'delete #1 "Shared"?' || return 1
  keys y
  wait_for 'deleted #1 "Shared"' || return 1
  wait_for "synced" || return 1

  kill_board_in pg-here
  target=pg-here
  wait_for "exit status 137" || return 1
  tm kill-session -t pg-here
  tm new-session -d -s pg-here -x 120 -y 30 \
    "$board --server '$a' --db '$work/pg-here.sqlite' --log '$work/pg-here.log'; echo \"exit status \$?\"; sleep 600"
  wait_for "Made offline" || return 1
  wait_for "offline — 2 change(s) to send" || return 1
  start_board_server pg-a "${a##*:}" "$url" || return 1
  wait_for "conflict: #1 deleted on the server, yours kept here" || return 1
  wait_for "#1 Edited offline" || return 1
  target=pg-there
  wait_for "#3 Made offline" || return 1
  target=pg-here
  keys K
  wait_for "synced" || return 1
  target=pg-there
  wait_for "Edited offline" || return 1
  for session in pg-here pg-there; do
    target=$session
    [ -n "${BOARD_E2E_SHOW:-}" ] && screen
    keys q
    wait_for "exit status 0" || return 1
  done
  target=board
  local titles
  titles=$("$psql" "${REDUXKIT_POSTGRES_URL%/*}/$database" -Atc "SELECT title FROM cards ORDER BY title") || return 1
  [ "$titles" = $'Edited offline\nKept here\nMade offline' ] || {
    echo "board-e2e: the database holds:"
    echo "$titles"
    return 1
  }
}

# Two boards in line mode on one file, fed 100 adds each and started together (two scripts,
# two terminals): every add is acknowledged "(saved)" and the file holds all 200 cards, each
# under an id of its own.
two_boards_in_line_mode_on_one_file() {
  local shared="$work/lines-shared.sqlite" name
  for name in a b; do
    for n in $(seq 1 100); do echo "add Todo card $name$n"; done >"$work/$name.in"
  done
  "$board" --db "$shared" --lines <"$work/a.in" >"$work/a.out" 2>"$work/a.err" &
  local first=$!
  "$board" --db "$shared" --lines <"$work/b.in" >"$work/b.out" 2>"$work/b.err" &
  local second=$!
  wait "$first" || { echo "board-e2e: board a failed:"; cat "$work/a.err"; return 1; }
  wait "$second" || { echo "board-e2e: board b failed:"; cat "$work/b.err"; return 1; }
  [ "$(grep -c '(saved)$' "$work/a.out")" -eq 100 ] && [ "$(grep -c '(saved)$' "$work/b.out")" -eq 100 ] \
    || { echo "board-e2e: not every add was saved:"; grep -v '(saved)$' "$work/a.out" "$work/b.out"; return 1; }
  local listing
  listing=$(echo "list" | "$board" --db "$shared" --lines) || return 1
  [ "$(grep -c '^  #' <<< "$listing")" -eq 200 ] \
    || { echo "board-e2e: the file holds $(grep -c '^  #' <<< "$listing") cards, not 200"; return 1; }
  [ "$(grep -o '^  #[0-9]*' <<< "$listing" | sort -u | wc -l)" -eq 200 ] \
    || { echo "board-e2e: two cards share an id"; return 1; }
}

# Two boards full screen on one file (two terminals; the sessions are not named left and
# right, which tmux reads as pane positions): a card added in one shows in the other,
# a move made there shows back here; both edit one card's title at once: one wins, the other
# says its edit lost the race with what was typed, and both end up showing the winner's title.
two_boards_on_one_file() {
  local shared="$work/shared.sqlite" session
  for session in first second; do
    tm new-session -d -s "$session" -x 120 -y 30 \
      "$board --db '$shared' --log '$work/$session.log'; echo \"exit status \$?\"; sleep 600"
    target=$session
    wait_for "ReduxKit board · Board" || return 1
  done
  target=first
  add_card "Shared card" 1 || return 1
  target=second
  wait_for "#1 Shared card" || return 1
  keys m
  wait_for "move #1 to: 1 Todo  2 Doing  3 Done" || return 1
  keys 2
  wait_for "moved #1 to Doing" || return 1
  target=first
  wait_for "Doing (1)" || return 1
  wait_for "#1 Shared card" || return 1
  # Both open the card's form, type a title, and press Enter together.
  # NB: the second board's selection followed the card it moved; the first one's is in Todo.
  for session in first second; do
    target=$session
    keys h h l e
    wait_for "Title:  Shared card" || return 1
    keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
    wait_for "Title:" "Title: *$" || return 1
    type_text "Title from $session"
    wait_for "Title:  Title from $session" || return 1
  done
  tm send-keys -t first Enter \; send-keys -t second Enter
  local deadline=$((SECONDS + 20)) loser=""
  while [ -z "$loser" ] && [ $SECONDS -lt $deadline ]; do
    for session in first second; do
      target=$session
      screen | grep -q "changed in another window first" && loser=$session
    done
    [ -n "$loser" ] || sleep 0.05
  done
  [ -n "$loser" ] || { echo "board-e2e: neither board said its edit lost"; screen; return 1; }
  local winner=first
  [ "$loser" = first ] && winner=second
  target=$loser
  wait_for "your edit \"Title from $loser\" not saved" || return 1
  wait_for "#1 Title from $winner" || return 1
  [ -n "${BOARD_E2E_SHOW:-}" ] && screen
  target=$winner
  wait_for "#1 Title from $winner" || return 1
  for session in first second; do
    target=$session
    keys q
    wait_for "exit status 0" || return 1
  done
  target=board
  local saved
  saved=$(echo "show 1" | "$board" --db "$shared" --lines) || return 1
  grep -q "Title from $winner" <<< "$saved" || { echo "board-e2e: the file holds: $saved"; return 1; }
}

# The board recorded and served on the DevTools page (the page's API, as its buttons call it):
# a jump shows a past board on this screen, a change meanwhile is refused in words, resume
# brings the present back; then the session file read in the terminal.
devtools_time_travel() {
  if [ ! -x "$inspect" ]; then
    swift build --package-path Packages/DevTools --product reduxkit-inspect >/dev/null || return 1
  fi
  tm kill-session -t board 2>/dev/null
  tm new-session -d -s board -x 100 -y 30 \
    "$board --db '$work/travel.sqlite' --log '$work/travel.log' --devtools --record '$work/session.jsonl'; echo \"exit status \$?\"; sleep 600"
  wait_for "DevTools: http://127.0.0.1:" || return 1
  local url token
  url=$(screen | grep -o 'DevTools: http://[0-9.:]*/?token=[0-9a-f]*' | head -n 1 | cut -d' ' -f2)
  [ -n "$url" ] || { echo "board-e2e: no DevTools address (with its token) on the screen"; return 1; }
  token=${url##*token=}
  url=${url%%\?*}
  curl -s -o /dev/null -w '%{http_code}' -X POST "${url}api/jump?index=1" | grep -qx 401 \
    || { echo "board-e2e: a jump without the token was not refused"; return 1; }
  add_card "Recorded one" 1 || return 1
  add_card "Recorded two" 2 || return 1
  keys m
  wait_for "move #2 to: 1 Todo  2 Doing  3 Done" || return 1
  keys 2
  wait_for "moved #2 to Doing" || return 1
  curl -sf -X POST "${url}api/jump?index=1&token=$token" >/dev/null || { echo "board-e2e: jump refused"; return 1; }
  wait_for "DevTools: the board after #1, paused" || return 1
  wait_for "Todo (1)" || return 1
  screen | grep -q "Recorded two" && { echo "board-e2e: the travelled board still shows #2"; return 1; }
  # NB: the selection followed #2 to Doing, empty on the travelled board.
  keys h d
  wait_for "delete #1" || return 1
  keys y
  wait_for "DevTools show the board as after #1 (time travel)" || return 1
  curl -sf -X POST "${url}api/resume?token=$token" >/dev/null || { echo "board-e2e: resume refused"; return 1; }
  wait_for "Doing (1)" || return 1
  wait_for "#2 Recorded two" || return 1
  keys q
  wait_for "exit status 0" || return 1
  local listing difference
  listing=$("$inspect" "$work/session.jsonl" --filter card) || return 1
  [ "$(grep -c 'addCard  reduced' <<< "$listing")" -eq 2 ] \
    && grep -q 'moveCard  reduced' <<< "$listing" \
    || { echo "board-e2e: reduxkit-inspect lists:"; echo "$listing"; return 1; }
  difference=$("$inspect" "$work/session.jsonl" --diff 3) || return 1
  grep -qF 'cards[id=2].columnID: 1 → 2' <<< "$difference" \
    || { echo "board-e2e: reduxkit-inspect --diff 3 says:"; echo "$difference"; return 1; }
}

# CPU time the process $1 has used, in clock ticks (1/100 s): what a key costs, unlike a wall
# clock, barely depends on the machine's load.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }


# 100,000 characters pasted (tmux pastes them bracketed, as a terminal does once the board asks)
# into a new card: one insertion, the field shows its end, the keys after it cost what a key
# costs; the card view wraps the title.
a_long_paste() {
  local file="$work/paste.sqlite" pid before
  start_on "$file" || return 1
  python3 -c 'import sys; sys.stdout.write("lorem ipsum dolor\n" * 5555 + "the last!Z")' >"$work/paste.txt"
  tm load-buffer -b pasted "$work/paste.txt" || return 1
  keys n
  wait_for "New card" || return 1
  tm paste-buffer -p -d -b pasted -t board || return 1
  wait_for "Title:  …" "lorem ipsum dolor the last!Z *$" || return 1
  pid=$(pgrep -f -- "^$board --db '?$file") || { echo "board-e2e: no board process"; return 1; }
  before=$(cpu_ticks "$pid")
  type_text "the end"
  wait_for "the last!Zthe end" || return 1
  keys BSpace BSpace BSpace
  wait_for "the last!Zthe" "Zthe *$" || return 1
  # NB: seven keys and three backspaces; each cost ~300 ms of CPU once a paste had left the
  # board slow. 2 s for all ten is far above a debug build's cost and far below that.
  local spent=$(( $(cpu_ticks "$pid") - before ))
  [ "$spent" -lt 200 ] || { echo "board-e2e: ten keys after the paste took $spent ticks of CPU"; return 1; }
  keys Enter
  wait_for 'added #1 "lorem ipsum dolor lorem' || return 1
  keys Enter
  wait_for "ReduxKit board · Card #1" || return 1
  # The title wraps over the lines the screen has, and says that it goes on.
  [ "$(screen | grep -c 'lorem ipsum dolor')" -ge 10 ] || { echo "board-e2e: the title does not wrap"; screen; return 1; }
  wait_for "…" || return 1
  keys Escape
  wait_for "ReduxKit board · Board" || return 1
  keys q
  wait_for "exit status 0"
}

# A board of 10,000 cards (written into its file as any SQLite tool would): it starts, pages,
# jumps to either end and searches, each key answered at once.
ten_thousand_cards() {
  local file="$work/large.sqlite" pid before
  echo "add Doing Card 1" | "$board" --db "$file" --lines >/dev/null || return 1
  python3 - "$file" <<'PY' || return 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = [(n, 1 + n % 3, f"Card {n}", "", "[]", None, 8e8, 8e8, 1) for n in range(2, 10001)]
db.executemany("INSERT INTO cards (id, columnID, title, notes, tags, due, createdAt, updatedAt, version) VALUES (?,?,?,?,?,?,?,?,?)", rows)
db.execute("INSERT OR REPLACE INTO reduxkit_ids (table_name, last) VALUES ('cards', 10000)")
db.commit()
PY
  start_on "$file" || return 1
  wait_for "Todo (3333)" || return 1
  wait_for "Doing (3334)" || return 1
  pid=$(pgrep -f -- "^$board --db '?$file") || { echo "board-e2e: no board process"; return 1; }
  before=$(cpu_ticks "$pid")
  keys End
  wait_for "#9999 Card 9999" || return 1
  wait_for "↑ 3309 above" || return 1
  keys PageUp
  wait_for "↓ 24 more" || return 1
  keys g
  wait_for "#3 Card 3" || return 1
  keys Down Down Down PageDown PageDown G
  wait_for "#9999 Card 9999" || return 1
  # NB: twelve keys on 10,000 cards; ~300 ms of CPU each when every column filtered every card
  # on every frame and key.
  local spent=$(( $(cpu_ticks "$pid") - before ))
  [ "$spent" -lt 200 ] || { echo "board-e2e: twelve keys took $spent ticks of CPU"; return 1; }
  keys /
  type_text "card 777"
  wait_for "11 card(s) match 'card 777'" || return 1
  keys Escape
  wait_for "ReduxKit board · Board" || return 1
  keys q
  wait_for "exit status 0"
}

# `board | tee log` from a terminal: line mode, and standard error says why; an error goes
# there too, not into the log of replies.
line_mode_through_tee() {
  target=board
  tm kill-session -t board 2>/dev/null
  tm new-session -d -s board -x 100 -y 30 \
    "$board --db '$work/tee.sqlite' | tee '$work/tee.out'; echo \"exit status \$?\"; sleep 600"
  wait_for "board: line mode, because standard output is not a terminal" || return 1
  type_text "delete 1 2"
  keys Enter
  wait_for "error: delete: unexpected '2'" || return 1
  type_text "quit"
  keys Enter
  wait_for "exit status 0" || return 1
  grep -q "bye" "$work/tee.out" && ! grep -q "error" "$work/tee.out" \
    || { echo "board-e2e: tee saw:"; cat "$work/tee.out"; return 1; }
}

scenario "scripted session, then a restart shows the cards" scripted_session
scenario "kill -9 after a save is shown loses nothing" killed_after_save
scenario "SIGTERM right after a change saves it" terminated_before_the_debounce
scenario "a terminal narrower than the layout, then wide again" narrow_terminal
scenario "two boards on one board-server show each other's changes" two_boards_on_a_server
scenario "offline: the server and the board killed, nothing the board saved is lost" offline_through_two_kills
scenario "two boards, two servers on PostgreSQL, both killed: nothing saved is lost" two_boards_two_servers_and_kills
scenario "two boards in line mode on one file: 200 adds, 200 cards" two_boards_in_line_mode_on_one_file
scenario "two boards on one file: each shows the other's changes, a lost edit is said" two_boards_on_one_file
scenario "board --devtools: a jump shows a past board, resume the present; inspected" devtools_time_travel
scenario "a 100,000-character paste is one insertion, and later keys stay cheap" a_long_paste
scenario "10,000 cards: paging, either end and search, each key at once" ten_thousand_cards
scenario "board | tee: line mode says why, errors stay out of the replies" line_mode_through_tee
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
