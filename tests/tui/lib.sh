# tests/tui/lib.sh - drive 'mtx browse' through tmux as a person would
# (sourced after tests/e2e/lib.sh): start it in a detached tmux session of
# a fixed size, send keys, wait until the screen shows a text (never a bare
# sleep), and compare whole screens with the expected ones in
# tests/tui/screens/. MTX_TUI_UPDATE=1 rewrites the expected screens
# instead (then read every changed one before committing it).
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
# Private servers, a new one per session: the tests never touch the user's
# tmux or each other's, and never wait for an old server to go away.
TMUX_SERVERS=0
TMUX_SOCKET="mtx-test-$$-0"
tm() { tmux -L "$TMUX_SOCKET" "$@"; }
trap 'for i in $(seq 0 $TMUX_SERVERS); do tmux -L "mtx-test-$$-$i" kill-server 2>/dev/null; done
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

# session COLSxROWS COMMAND - a fresh tmux server and session running
# COMMAND (through sh); the pane stays when it exits.
session() {
	tm kill-server 2>/dev/null
	TMUX_SERVERS=$((TMUX_SERVERS + 1))
	TMUX_SOCKET="mtx-test-$$-$TMUX_SERVERS"
	tm -f /dev/null new-session -d -s t -x "${1%x*}" -y "${1#*x}" "$2"
}
SCREENS=$srcdir/tests/tui/screens

# browse_start COLSxROWS ARGS... - run mtx browse ARGS in a fresh session;
# when it exits the pane shows "exit=STATUS" and stays.
browse_start() {
	local size=$1
	shift
	session "$size" "env LC_ALL=C.UTF-8 TERM=xterm-256color $MTX browse $*; echo exit=\$?; sleep 600"
}

# screen - the pane now, trailing blanks cut.
screen() { tm capture-pane -p -t t | sed -e 's/[[:space:]]*$//'; }

# wait_for TEXT [SECONDS] - until the screen holds TEXT (fixed string);
# fails the test and shows the screen if it never does.
wait_for() {
	local text=$1 limit=${2:-10} i=0
	while [ $i -lt $((limit * 20)) ]; do
		screen | grep -qF -- "$text" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	fail "screen never showed '$text'; it shows:"
	screen | sed 's/^/  | /'
	return 1
}

# keys KEY... - send tmux key names (Enter, Escape, Tab, Left, ...).
keys() { tm send-keys -t t "$@"; }
# type TEXT - send TEXT literally (a prompt's answer).
type_text() { tm send-keys -t t -l "$1"; }

# expect_screen NAME - the screen equals tests/tui/screens/NAME.txt.
expect_screen() {
	local want=$SCREENS/$1.txt
	screen > "$TMP/$1.txt"
	if [ -n "${MTX_TUI_UPDATE:-}" ]; then
		cp "$TMP/$1.txt" "$want"
		echo "updated: $want"
		return 0
	fi
	if diff -u "$want" "$TMP/$1.txt" > "$TMP/$1.diff"; then
		pass "screen $1"
	else
		fail "screen $1 differs from $want:"
		sed 's/^/  | /' "$TMP/$1.diff"
	fi
}
