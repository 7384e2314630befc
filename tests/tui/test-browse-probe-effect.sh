#!/bin/bash
# tests/tui/test-browse-probe-effect.sh - the probe-effect view (key E) on
# the hand-worked fixtures of mtx probe-effect, at 80x24. The expected
# screens were written from each fixture's hand-worked orders (its header
# comment), not recorded from mtx: a lane shows each event's number in its
# run's total order at column (t - run start) / (ns a column), where the
# whole run fits the 58 columns of the plot (80 - 22 for the labels):
# ceil(140 us / 58) = 2414 ns for probe-fig8.sql, ceil(240 us / 58) = 4138
# ns for probe-mutex-flip.sql (the window of e_d takes more than half of
# it, so the view does not zoom in); the line runs over the thread's life
# (S: to its last simulated event); the cursor is on e_d as simulated (the
# first simulated event when the graphs are equal), on its thread's S lane.
#  - probe-fig8.sql, seed 004 Fig. 8: equal; observed philo-4#1 #1 (105 us),
#    philo-2#1 #2 (110), philo-4#2 #3 (115), philo-2#2 #4 (120); simulated
#    without philo-4's 60 us: philo-4#1 #1 (45), philo-4#2 #2 (55),
#    philo-2#1 #3 (110), philo-2#2 #4 (120); one inversion.
#  - probe-mutex-flip.sql: divergent at worker-a#1, S#1 (100 us, no edge
#    in) and I#3 (201 us, after worker-b#2's unlock, #2 observed).
#  - probe-up-prio.sql with 60 us on low's lock: divergent at low#1 in
#    either model; m switches the model and simulates again.
# Under the lanes, the CPU clock C_i of the event's thread on entering its
# call (seed 004 Fig. 1), as recorded and less the overhead: philo-4's lock
# at 105 us and 105 - 60 = 45 us, worker-a's at 180 and 180 - 80 = 100 us
# (they are on the expected screens).
# Also: ] [ move along a lane, Enter opens the event's object on its op, and
# the file is left unchanged (the view computes in memory).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

# row_is ROW TEXT - until row ROW of the screen (1: the top) is TEXT, cut
# to the screen's 80 columns; fails the test if it never is. Row 22 is the
# event under the cursor, row 23 its thread's CPU clock.
row_is() {
	local i=0
	while [ $i -lt 200 ]; do
		[ "$(screen | sed -n "$1p")" = "${2:0:80}" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	fail "row $1 never was '$2'; the screen shows:"
	screen | sed 's/^/  | /'
	return 1
}
detail_is() { row_is 22 "$1"; }
clock_is() { row_is 23 "$1"; }

# marks LABEL - the numbers on the lane LABEL ("worker-a (100) I") with
# how each is drawn (capture-pane -e): e_d (white on red), dep (yellow: a
# source of e_d's edges in that run's graph), window (magenta: within 6
# places of e_d), cursor (white: under the time cursor), plain.
marks() {
	tm capture-pane -e -p -t t | LABEL="$1" perl -ne '
		next unless s/^.*?\Q$ENV{LABEL}\E//;
		my ($fg, $bg, @out) = ("", "");
		while (/\e\[([0-9;]*)m|([0-9]+)|./gs) {
			if (defined $1) {
				for my $c (split /;/, $1 eq "" ? "0" : $1) {
					$fg = "" if $c == 0 || $c == 39;
					$bg = "" if $c == 0 || $c == 49;
					$fg = $c if $c >= 30 && $c <= 37;
					$bg = $c if $c >= 40 && $c <= 47;
				}
			} elsif (defined $2) {
				push @out, "$2:" . ($bg eq "41" ? "e_d" : $fg eq "33" ? "dep" : $fg eq "35" ? "window" :
						    $fg eq "37" ? "cursor" : "plain");
			}
		}
		print join(" ", @out), "\n";'
}

# expect_marks LABEL WANT - the lane's marks are WANT.
expect_marks() {
	local got
	got=$(marks "$1")
	[ "$got" = "$2" ] && pass "$1: $2" || fail "$1: marks '$got', want '$2'"
}

for f in fig8 mutex-flip up-prio; do
	mkdir -p "$TMP/$f"
	"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/probe-$f.sql" "$TMP/$f/run.db" || fail "fixture-db $f"
done
before=$(md5sum < "$TMP/mutex-flip/run.db")

browse_start 80x24 "$TMP/fig8/run.db"
wait_for "row 1 of 2"; keys E; wait_for "lane 4 of 4" && expect_screen probe-effect-fig8
keys k; wait_for "lane 3 of 4"; keys ']'
detail_is "I: #1 philo-4#1 lock mutex 0x7100 at 105.00 us <- nothing" &&
	pass "] goes to the lane's next event, as observed"
# philo-2 read from 0 to 100 us, then ran 10 us to its lock: its CPU clock
# is 10 us there in both runs (nothing removed from it).
keys k k ']'; detail_is "I: #2 philo-2#1 lock mutex 0x7000 at 110.00 us <- nothing" &&
	clock_is "philo-2's CPU clock C_i on entering it: I 10.00 us, S 10.00 us" &&
	pass "a thread's CPU clock does not count its wait for input"
keys q; wait_for "exit=0"

browse_start 80x24 "$TMP/mutex-flip/run.db"
wait_for "row 1 of 2"; keys E; wait_for "lane 2 of 4" && expect_screen probe-effect-flip
# e_d is worker-a#1 (I#3, S#1); its one edge in G^I comes from worker-b#2
# (I#2), it has none in G^S; the 4 events are all within 6 places of it.
expect_marks "worker-a (100) I" "3:e_d 4:window"
expect_marks "worker-a (100) S" "1:cursor 2:window"
expect_marks "worker-b (101) I" "1:window 2:dep"
expect_marks "worker-b (101) S" "3:window 4:window"
keys j; wait_for "lane 3 of 4"; expect_marks "worker-a (100) S" "1:e_d 2:window"
keys k
keys ']'
detail_is "S: #2 worker-a#2 unlock mutex 0x1000 at 130.00 us <- #1 worker-a#1 (program)" &&
	pass "the next simulated event and its program-order edge"
keys k '['; wait_for "no earlier event on this lane" && pass "[ before the lane's first event says so"
keys ']'; detail_is "I: #3 worker-a#1 lock mutex 0x1000 at 201.00 us <- #2 worker-b#2 (lock)" &&
	pass "e_d as observed, with its edge from worker-b's unlock"
keys Enter; wait_for "mutex 0x1000 history" && pass "Enter opens the event's object"
keys q; wait_for "lane 1 of 4"
keys f; wait_for "lanes of threads matching"; type_text 'b \(101\)'; keys Enter
if wait_for "lane 1 of 2, filter b \(101\)"; then
	lanes=$(screen | grep -E '^worker-[ab] \([0-9]+\) [IS] ' | cut -c1-16 | tr '\n' ',')
	[ "$lanes" = "worker-b (101) I,worker-b (101) S," ] && pass "f keeps the lanes of the threads matching" ||
		fail "f kept the lanes '$lanes', not worker-b's two"
fi
keys f Enter; wait_for "lane 3 of 4"; keys Tab; wait_for "mtx browse run.db: threads" && pass "Tab from the last main view"
keys q; wait_for "exit=0"
[ "$(md5sum < "$TMP/mutex-flip/run.db")" = "$before" ] && pass "the file is unchanged" || fail "mtx browse changed the file"

if ! command -v sqlite3 > /dev/null; then
	echo "skip: the up-prio fixture with overhead (no sqlite3 shell)"
else
	sql "$TMP/up-prio/run.db" "UPDATE sync_ops SET overhead_ns = 60000 WHERE id = 3"
	browse_start 80x24 "$TMP/up-prio/run.db"
	wait_for "row 1 of 2"; keys E
	wait_for "divergent from S#1 (I#3), none trustworthy; smp, 1 CPU, 60.00 us removed" && pass "up-prio fixture, smp"
	keys m; wait_for "divergent from S#1 (I#3), none trustworthy; up-prio, 1 CPU, 60.00 us removed" &&
		wait_for "e_d I: #3 low#1 lock mutex 0x8000 at 150.00 us <- #2 high#2 (lock)" &&
		wait_for "e_d S: #1 at 70.00 us <- nothing" && pass "m: the up-prio model, e_d low#1 at 70 us"
	keys Q; wait_for "exit=0"
fi
finish
