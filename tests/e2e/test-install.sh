#!/bin/bash
# tests/e2e/test-install.sh - make install, as the README says, staged
# under a root of its own (DESTDIR): the installed mtx runs, its man pages
# are there and render, and it preloads the library installed beside it
# (the path the traced program's /proc/self/maps shows), not the build
# tree's; the bash completion completes from it; make uninstall takes it
# all away.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
stage=$TMP/stage

# make -C the build tree, not under the make that runs the tests (its
# jobserver is not ours).
build_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$BUILDDIR" "$@" DESTDIR="$stage"; }

build_make install > install.log 2>&1 || { fail "make install: $(tail -3 install.log)"; finish; }
mtx=$(find "$stage" -path '*/bin/mtx' -type f)
[ -n "$mtx" ] && "$mtx" --version > version.out && pass "installed: ${mtx#"$stage"}: $(head -1 version.out)" ||
	fail "no installed mtx under $stage that runs"
grep -q "^preload library: $stage/.*/libmtx-preload\.so$" version.out &&
	pass "its --version: $(sed -n 2p version.out); the installed preload library" ||
	fail "the installed mtx --version says: $(tr '\n' '|' < version.out)"
for page in "$srcdir"/man/*.[1-8]; do
	name=$(basename "$page")
	got=$(find "$stage" -path "*/man/man${name##*.}/$name" -type f)
	if [ -z "$got" ]; then
		fail "make install left out the page $name"
	elif ! MAN_DISABLE_SECCOMP=1 man -l "$got" > /dev/null 2>&1; then
		fail "the installed $name does not render"
	fi
done

if [ "$(id -u)" = 0 ] && "$MTX" collect -q -o probe.db -- /bin/true 2> /dev/null; then
	"$mtx" collect -q -o maps.db -- cat /proc/self/maps > maps.out 2> maps.err ||
		fail "the installed mtx collect: $(head -1 maps.err)"
	lib=$(grep -o '/[^ ]*libmtx-preload\.so' maps.out | head -1)
	case "$lib" in
		"$stage"/*) pass "the installed mtx preloads the installed library: ${lib#"$stage"}" ;;
		*) fail "the installed mtx preloaded '${lib:-nothing}', not a library under $stage" ;;
	esac
	[ "$(sql maps.db "SELECT COUNT(*) FROM threads")" -gt 0 ] || fail "the installed mtx recorded no thread"
else
	echo "note: no perf access here: the installed mtx was not run on a program"
fi

# bash completion, from the installed mtx's own texts: the command, a
# report, an option, an export format
comp=$(find "$stage" -path '*/bash-completion/completions/mtx' -type f)
if [ -z "$comp" ]; then
	fail "make install left out the bash completion"
else
	got=$(PATH=$(dirname "$mtx"):$PATH bash -c '. "$1"; comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_mtx; printf "%s " "${COMPREPLY[@]}"; echo; }
		comp mtx expo; comp mtx report loc; comp mtx diagnose --list-t; comp mtx export --format fo' _ "$comp")
	[ "$got" = "$(printf '%s \n' export locks --list-tunables folded)" ] &&
		pass "bash completion: export, locks, --list-tunables, folded" ||
		fail "bash completion offered: $(echo "$got" | tr '\n' '|')"
fi

build_make uninstall > uninstall.log 2>&1 || fail "make uninstall: $(tail -3 uninstall.log)"
left=$(find "$stage" -type f | head -3)
[ -z "$left" ] && pass "make uninstall leaves no file" || fail "make uninstall left $left"
finish
