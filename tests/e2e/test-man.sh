#!/bin/sh
# tests/e2e/test-man.sh - the manual pages keep up with the code:
#  - every CREATE TABLE / CREATE VIEW in schema/*.sql has a ".SS name"
#    section in man/mtx-db.5;
#  - every long option in each command's usage text appears in its page,
#    where an item (.TP) begins with it;
#  - every report of src/reports.c has its paragraph in man/mtx-report.1;
#  - every command in the table of src/cmd/mtx.c has a page man/mtx-NAME.1;
#  - every key of mtx browse (its action table, 'mtx browse --keys') has
#    its entry in man/mtx-browse.1: '.B "KEYS"' then a line naming the action;
#  - every environment variable mtx reads or sets for the program has an
#    entry in mtx(1)'s ENVIRONMENT;
#  - every page has the same date in its .TH line, and the README names
#    every page and says how to install them;
#  - every page renders without a warning (man --warnings, groff -ww).
# Exit 0 when all hold, 1 with one line per problem otherwise.
# The source tree is $srcdir (set by automake), else two levels above here.

if [ -z "$srcdir" ]; then
	srcdir=$(dirname "$0")/../..
fi
top=$srcdir
me=test-man
problems=0

fail() {
	echo "$me: FAIL: $*" >&2
	problems=$((problems + 1))
}

for f in "$top/man/mtx-db.5" "$top/man/mtx-collect.1" "$top/src/cmd/mtx.c" "$top/src/cmd/cmd-collect.c"; do
	if [ ! -r "$f" ]; then
		echo "$me: FAIL: cannot read $f (is \$srcdir=$srcdir the source tree?)" >&2
		exit 1
	fi
done

# Roff source with escapes that may sit inside a word taken out:
# "\-" -> "-", "\%" and "\&" -> "", so "\-\-output" matches "--output".
plain() {
	sed -e 's/\\-/-/g' -e 's/\\%//g' -e 's/\\&//g' "$1"
}

# 1. Every table and view of the schema has its section in mtx-db(5).
names=$(cat "$top"/schema/*.sql | sed 's/--.*//' |
	grep -Eio 'create[[:space:]]+(temp[[:space:]]+|temporary[[:space:]]+)?(table|view)[[:space:]]+(if[[:space:]]+not[[:space:]]+exists[[:space:]]+)?["`]?[A-Za-z_][A-Za-z0-9_]*' |
	awk '{ print $NF }' | tr -d '"`' | sort -u)
if [ -z "$names" ]; then
	fail "no CREATE TABLE or CREATE VIEW found in $top/schema/*.sql"
fi
sections=$(plain "$top/man/mtx-db.5" | sed -n 's/^\.SS[[:space:]]\{1,\}"\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p')
for n in $names; do
	if ! printf '%s\n' "$sections" | grep -qx "$n"; then
		fail "schema object '$n' has no '.SS $n' section in man/mtx-db.5"
	fi
done

# 2. Every long option in each command's usage text (cmd_NAME_usage in
#    src/cmd/cmd-NAME.c) is in its page man/mtx-NAME.1.
for src in "$top"/src/cmd/cmd-*.c; do
	name=$(basename "$src" .c | sed 's/^cmd-//')
	page="$top/man/mtx-$name.1"
	var=$(printf '%s' "$name" | tr - _) # cmd-probe-effect.c: cmd_probe_effect_usage
	usage=$(sed -n "/cmd_${var}_usage\[\][[:space:]]*=/,/;[[:space:]]*\$/p" "$src")
	opts=$(printf '%s\n' "$usage" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
	if [ -z "$usage" ]; then
		fail "no cmd_${var}_usage found in $src"
		continue
	fi
	[ -r "$page" ] || continue # rule 3 reports the missing page
	text=$(plain "$page")
	# the lines that begin an item: the one after each .TP
	items=$(printf '%s\n' "$text" | awk 'tp { print } { tp = /^\.TP/ }')
	for o in $opts; do
		if ! printf '%s\n' "$text" | grep -q -e "$o\([^a-z0-9-]\|$\)"; then
			fail "option '$o' of cmd_${var}_usage is not in man/mtx-$name.1"
		elif ! printf '%s\n' "$items" | grep -q -e "$o\([^a-z0-9-]\|$\)"; then
			fail "option '$o' of cmd_${var}_usage begins no item (.TP) of man/mtx-$name.1"
		fi
	done
done

# 2b. Every report of src/reports.c has its paragraph in mtx-report(1).
reports=$(sed -n '/mtx_report reports\[\][[:space:]]*=/,/^};/p' "$top/src/reports.c" |
	sed -n 's/^[[:space:]]*{[[:space:]]*"\([^"]*\)".*/\1/p')
if [ -z "$reports" ]; then
	fail "no reports found in the table of src/reports.c"
fi
report_page=$(plain "$top/man/mtx-report.1")
for r in $reports; do
	if ! printf '%s\n' "$report_page" | grep -Eq "^\.BI? $r( |\$)"; then
		fail "report '$r' (src/reports.c) has no '.B $r' paragraph in man/mtx-report.1"
	fi
done

# 2c. Every key of the browser's action table is in mtx-browse(1).
mtx=${BUILDDIR:-.}/mtx
if [ -x "$mtx" ]; then
	browse_page=$(plain "$top/man/mtx-browse.1")
	keys=$("$mtx" browse --keys) || fail "mtx browse --keys failed"
	[ -n "$keys" ] || fail "mtx browse --keys printed nothing"
	printf '%s\n' "$keys" | while IFS= read -r line; do
		k=$(printf '%s' "$line" | cut -c1-20 | sed 's/ *$//')
		a=$(printf '%s' "$line" | cut -c22-35 | sed 's/ *$//')
		if ! printf '%s\n' "$browse_page" | grep -A1 -Fx ".B \"$k\"" | grep -q "^$a "; then
			echo "$me: FAIL: key '$k' ($a) of the browser's action table is not in man/mtx-browse.1" >&2
			echo x
		fi
	done > "${TMPDIR:-/tmp}/test-man-keys.$$"
	problems=$((problems + $(wc -l < "${TMPDIR:-/tmp}/test-man-keys.$$")))
	rm -f "${TMPDIR:-/tmp}/test-man-keys.$$"
else
	fail "no built mtx at $mtx (set BUILDDIR) to check the browser's keys"
fi

# 3. Every command of the subcommand table has its page.
commands=$(sed -n '/commands\[\][[:space:]]*=/,/^};/p' "$top/src/cmd/mtx.c" |
	sed -n 's/^[[:space:]]*{[[:space:]]*"\([^"]*\)".*/\1/p')
if [ -z "$commands" ]; then
	fail "no commands found in the table of src/cmd/mtx.c"
fi
for c in $commands; do
	if [ ! -f "$top/man/mtx-$c.1" ]; then
		fail "command '$c' (src/cmd/mtx.c) has no man/mtx-$c.1"
	fi
done

# 3b. Every environment variable mtx reads (getenv) or sets for the
#     program (collector/preload/shm.h's MTX_*_ENV, LD_PRELOAD) has an
#     entry (.B or .BR) in mtx(1)'s ENVIRONMENT.
vars=$( { grep -rhoE 'getenv\("[A-Z_]+"\)' "$top/src" "$top/collector" "$top/ui" --include='*.c' |
	sed 's/getenv("\(.*\)")/\1/'
	sed -n 's/^#define MTX_[A-Z]*_ENV "\([A-Z_]*\)".*/\1/p' "$top/collector/preload/shm.h"; } | sort -u)
[ -n "$vars" ] || fail "no getenv(\"...\") found in $top/src, collector, ui"
env_entries=$(plain "$top/man/mtx.1" | sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' | grep '^\.BR\{0,1\} ')
for v in $vars; do
	if ! printf '%s\n' "$env_entries" | grep -qw -- "$v"; then
		fail "environment variable $v (read or set by mtx) has no entry in ENVIRONMENT of man/mtx.1"
	fi
done

# 3c. The pages agree on their date (the third field of .TH).
dates=$(for p in "$top"/man/*.[1-8]; do sed -n 's/^\.TH  *[^ ]*  *[^ ]*  *\([^ ]*\).*/\1/p' "$p"; done | sort -u)
[ "$(printf '%s\n' "$dates" | wc -l)" = 1 ] || fail "the pages' .TH lines give different dates: $(echo $dates)"

# 3d. The README's paragraph of man pages names every page, and the README
#     says how to install them.
listed=$(sed -n '/^Man pages:/,/^$/p' "$top/README.md")
for p in "$top"/man/*.[1-8]; do
	printf '%s\n' "$listed" | grep -q "man/$(basename "$p")" ||
		fail "README.md's 'Man pages:' does not name man/$(basename "$p")"
done
grep -q "make install" "$top/README.md" || fail "README.md does not say how to install mtx (make install)"

# 4. Every page renders without a warning.
pages=$(ls "$top"/man/*.[1-8] 2>/dev/null)
if [ -z "$pages" ]; then
	fail "no pages in $top/man"
fi
have_man=0
have_groff=0
command -v man >/dev/null 2>&1 && have_man=1
command -v groff >/dev/null 2>&1 && have_groff=1
if [ $have_man = 0 ] && [ $have_groff = 0 ]; then
	echo "$me: note: neither man nor groff is installed; rendering not checked" >&2
fi
for p in $pages; do
	if [ $have_man = 1 ]; then
		# man-db's seccomp sandbox fails in some containers: not our bug.
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 MAN_DISABLE_SECCOMP=1 \
			man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
		if [ -n "$out" ]; then
			fail "man --warnings on $(basename "$p"): $(printf '%s' "$out" | head -n 1)"
		fi
	fi
	if [ $have_groff = 1 ]; then
		out=$(groff -ww -man -z "$p" 2>&1)
		if [ -n "$out" ]; then
			fail "groff -ww on $(basename "$p"): $(printf '%s' "$out" | head -n 1)"
		fi
	fi
done

if [ $problems -gt 0 ]; then
	exit 1
fi
exit 0
