/*
 * tests/unit/test-symbols.c - src/symbols.c on real files: this test
 * program itself (a PIE executable with DWARF: names, declaration lines,
 * an inlined frame), a shared library of its own (tests/unit/symlib.c),
 * a stripped copy of that library (dynamic symbols only, and it says so),
 * a file whose build-id is not the one given (changed), a missing file,
 * and a compressed separate debug file (through the cache of copies).
 * Run-time addresses become file addresses through /proc/self/maps and
 * symbols_bias, as the collector does with MMAP2 records.
 */
#include "src/demangle.h"
#include "src/symbols.h"
#include "tests/unit/symlib.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The mapping of /proc/self/maps holding @addr: start, pgoff and path. */
static int mapping_of(uintptr_t addr, uint64_t *start, uint64_t *pgoff, char *path, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[1024];
	int found = 0;
	cr_assert(f);
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t s, e, off;
		char perms[8], file[512] = "";
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %511s", &s, &e, perms, &off, file) < 4)
			continue;
		if (addr >= s && addr < e) {
			*start = s;
			*pgoff = off;
			snprintf(path, size, "%s", file);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* The frames at run-time address @addr of this process, through @s. */
static int frames_at(struct mtx_symbols *s, uintptr_t addr, struct mtx_frame *frames, struct mtx_module **mod)
{
	uint64_t start, pgoff, bias;
	char path[512];
	cr_assert(mapping_of(addr, &start, &pgoff, path, sizeof(path)), "no mapping holds %#lx", (unsigned long)addr);
	*mod = symbols_module(s, path, NULL, 0);
	cr_assert_not_null(*mod);
	cr_assert_eq(symbols_bias(*mod, start, pgoff, &bias), 0, "no bias for %s", path);
	return symbols_lookup(*mod, addr - bias, frames);
}

static const char *base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

static const int hot_line = __LINE__ + 2;
unsigned long test_symbols_hot(unsigned long x);
__attribute__((noinline)) unsigned long test_symbols_hot(unsigned long x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static uintptr_t inner_return;

__attribute__((noinline)) static void note_return(void)
{
	inner_return = (uintptr_t)__builtin_return_address(0);
}

static const int inlined_line = __LINE__ + 1;
static inline __attribute__((always_inline)) void inlined_helper(void)
{
	note_return();
}
static const int note_call_line = __LINE__ - 2;

__attribute__((noinline)) static void outer_function(void)
{
	inlined_helper();
	__asm__ volatile("");
}
static const int helper_call_line = __LINE__ - 3;

static inline __attribute__((always_inline)) void inlined_twice(void)
{
	inlined_helper();
	__asm__ volatile("");
}

static const int outer_twice_line = __LINE__ + 1;
__attribute__((noinline)) static void outer_of_two(void)
{
	inlined_twice();
	__asm__ volatile("");
}

Test(symbols, pie_executable_names_its_functions_with_their_lines)
{
	struct mtx_symbols *s = symbols_new();
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	struct mtx_module *mod;
	int n = frames_at(s, (uintptr_t)test_symbols_hot + 2, frames, &mod);

	cr_assert_eq(n, 1);
	cr_assert_str_eq(frames[0].name, "test_symbols_hot");
	cr_assert_str_eq(base(frames[0].file), "test-symbols.c");
	cr_assert_eq(frames[0].line, hot_line);
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_SYMTAB);
	symbols_free(s);
}

/*
 * Inlined frames, outermost first, each with its line, and the physical
 * function with its own file and line. (dwarf_getscopes continues past an
 * inlined function with its abstract definition's scopes: the levels it
 * was inlined into must come from the concrete tree.)
 */
Test(symbols, inlined_frames_come_outermost_first)
{
	struct mtx_symbols *s = symbols_new();
	struct mtx_frame one[SYMBOLS_MAX_FRAMES], two[SYMBOLS_MAX_FRAMES];
	struct mtx_module *mod;
	int n1, n2;

	/* return address - 1: inside the call, inside the inlined code */
	outer_function();
	n1 = frames_at(s, inner_return - 1, one, &mod);
	outer_of_two();
	n2 = frames_at(s, inner_return - 1, two, &mod);

	cr_assert_eq(n1, 2, "%d frames", n1);
	cr_assert_str_eq(one[0].name, "outer_function");
	cr_assert_not_null(one[0].file, "the outer function lost its file");
	cr_assert_str_eq(base(one[0].file), "test-symbols.c");
	cr_assert_str_eq(one[1].name, "inlined_helper");
	cr_assert_eq(one[1].line, inlined_line);
	/* Where each is: the call of the inlined one, and the call inside it. */
	cr_assert_not_null(one[0].at_file);
	cr_assert_str_eq(base(one[0].at_file), "test-symbols.c");
	cr_assert_eq(one[0].at_line, helper_call_line, "outer_function at line %d", one[0].at_line);
	cr_assert_not_null(one[1].at_file);
	cr_assert_eq(one[1].at_line, note_call_line, "inlined_helper at line %d", one[1].at_line);

	cr_assert_eq(n2, 3, "%d frames", n2);
	cr_assert_str_eq(two[0].name, "outer_of_two");
	cr_assert_not_null(two[0].file, "the outer function lost its file");
	cr_assert_eq(two[0].line, outer_twice_line);
	cr_assert_str_eq(two[1].name, "inlined_twice");
	cr_assert_str_eq(two[2].name, "inlined_helper");
	symbols_free(s);
}

Test(symbols, shared_library_static_and_exported_functions)
{
	struct mtx_symbols *s = symbols_new();
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	struct mtx_module *mod;

	cr_assert_eq(symlib_exported(1), 11);
	cr_assert_eq(frames_at(s, (uintptr_t)symlib_exported + 1, frames, &mod), 1);
	cr_assert_str_eq(frames[0].name, "symlib_exported");
	cr_assert_str_eq(base(frames[0].file), "symlib.c");
	cr_assert_eq(frames_at(s, (uintptr_t)symlib_hidden_address() + 1, frames, &mod), 1);
	cr_assert_str_eq(frames[0].name, "symlib_hidden");
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_SYMTAB);
	symbols_free(s);
}

Test(symbols, stripped_library_falls_back_to_dynamic_symbols)
{
	struct mtx_symbols *s = symbols_new();
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	struct mtx_module *mod;
	uint64_t start, pgoff, bias;
	char path[512], copy[64], cmd[1200];
	int n;

	cr_assert(mapping_of((uintptr_t)symlib_exported, &start, &pgoff, path, sizeof(path)));
	snprintf(copy, sizeof(copy), "/tmp/mtx-symlib-stripped-%d.so", getpid());
	snprintf(cmd, sizeof(cmd), "strip --strip-all -o %s %s", copy, path);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	mod = symbols_module(s, copy, NULL, 0);
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_DYNSYM);
	cr_assert_eq(symbols_bias(mod, start, pgoff, &bias), 0);
	n = symbols_lookup(mod, (uintptr_t)symlib_exported + 1 - bias, frames);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(frames[0].name, "symlib_exported");
	cr_assert_null(frames[0].file);
	/* The static function is not in .dynsym: not named symlib_hidden. */
	n = symbols_lookup(mod, (uintptr_t)symlib_hidden_address() + 1 - bias, frames);
	cr_assert(n == 0 || strcmp(frames[0].name, "symlib_hidden") != 0);
	unlink(copy);
	symbols_free(s);
}

/* How many of the ELF file @path's sections are compressed (-1: not ELF). */
static int compressed_sections(const char *path)
{
	char cmd[600], out[64] = "";
	snprintf(cmd, sizeof(cmd), "readelf -SW %s 2>/dev/null | grep -c '^ *\\[.*\\] \\.debug_.* C ' || true", path);
	FILE *p = popen(cmd, "r");
	cr_assert(p && fgets(out, sizeof(out), p));
	pclose(p);
	return atoi(out);
}

/*
 * A library whose DWARF is in a separate, compressed debug file (as
 * distributions ship them, found here by .gnu_debuglink): the first lookup
 * names it from that file and leaves an uncompressed copy in the cache
 * ($MTX_DEBUG_CACHE), under the build-id; the next module of the same file
 * names it the same from the copy alone (the original is gone by then); a
 * copy whose build-id is not its name's is not used.
 */
Test(symbols, compressed_debug_file_is_copied_uncompressed_once_and_names_the_same)
{
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	uint64_t start, pgoff, bias;
	char path[512], dir[64], cmd[2000], lib[128], copy[256];
	const char *expected_file;
	int expected_line, n;

	cr_assert(mapping_of((uintptr_t)symlib_exported, &start, &pgoff, path, sizeof(path)));
	snprintf(dir, sizeof(dir), "/tmp/mtx-debug-cache-%d", getpid());
	snprintf(lib, sizeof(lib), "%s/libsym.so", dir);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %1$s && mkdir %1$s && objcopy --only-keep-debug --compress-debug-sections=zlib %2$s %1$s/libsym.debug"
		 " && objcopy --strip-all --add-gnu-debuglink=%1$s/libsym.debug %2$s %3$s",
		 dir, path, lib);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	cr_assert_gt(compressed_sections(strcat(strcpy(copy, dir), "/libsym.debug")), 0, "objcopy compressed nothing");
	snprintf(copy, sizeof(copy), "%s/cache", dir);
	setenv("MTX_DEBUG_CACHE", copy, 1);

	/* From the compressed file. */
	struct mtx_symbols *s = symbols_new();
	struct mtx_module *mod = symbols_module(s, lib, NULL, 0);
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_DEBUGINFO);
	cr_assert_eq(symbols_bias(mod, start, pgoff, &bias), 0);
	n = symbols_lookup(mod, (uintptr_t)symlib_exported + 1 - bias, frames);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(frames[0].name, "symlib_exported");
	cr_assert_str_eq(base(frames[0].file), "symlib.c");
	cr_assert_gt(frames[0].line, 0);
	expected_file = strdup(frames[0].file);
	expected_line = frames[0].line;
	symbols_free(s);

	/* The copy: one file, named after the build-id, nothing compressed. */
	snprintf(cmd, sizeof(cmd), "ls %s/cache/*.debug", dir);
	FILE *p = popen(cmd, "r");
	cr_assert(p && fgets(copy, sizeof(copy), p), "no copy in %s/cache", dir);
	pclose(p);
	copy[strcspn(copy, "\n")] = '\0';
	cr_assert_eq(strlen(base(copy)), 40 + strlen(".debug"), "%s is not named by a 20-byte build-id", copy);
	cr_assert_eq(compressed_sections(copy), 0, "%s still has compressed sections", copy);

	/* From the copy alone. */
	snprintf(cmd, sizeof(cmd), "rm %s/libsym.debug", dir);
	cr_assert_eq(system(cmd), 0);
	s = symbols_new();
	mod = symbols_module(s, lib, NULL, 0);
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_DEBUGINFO);
	n = symbols_lookup(mod, (uintptr_t)symlib_exported + 1 - bias, frames);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(frames[0].name, "symlib_exported");
	cr_assert_str_eq(frames[0].file, expected_file);
	cr_assert_eq(frames[0].line, expected_line);
	symbols_free(s);

	/* Another file under that name (this test program) is not used: no
	 * debug file at all then. */
	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe %s", (int)getpid(), copy);
	cr_assert_eq(system(cmd), 0);
	s = symbols_new();
	mod = symbols_module(s, lib, NULL, 0);
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_DYNSYM);
	symbols_free(s);

	unsetenv("MTX_DEBUG_CACHE");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	free((void *)expected_file);
}

Test(symbols, another_build_id_means_changed_and_names_nothing)
{
	struct mtx_symbols *s = symbols_new();
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	uint64_t start, pgoff, bias;
	char path[512];
	static const uint8_t other_id[20] = { 1, 2, 3 };
	struct mtx_module *mod;

	cr_assert(mapping_of((uintptr_t)test_symbols_hot, &start, &pgoff, path, sizeof(path)));
	mod = symbols_module(s, path, other_id, sizeof(other_id));
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_CHANGED);
	cr_assert_neq(symbols_bias(mod, start, pgoff, &bias), 0);
	cr_assert_eq(symbols_lookup(mod, 0x1000, frames), 0);
	/* Cached: the same answer again, and a different module than the
	 * one without a build-id. */
	cr_assert_eq(symbols_module(s, path, other_id, sizeof(other_id)), mod);
	cr_assert_neq(symbols_module(s, path, NULL, 0), mod);
	symbols_free(s);
}

Test(symbols, missing_file)
{
	struct mtx_symbols *s = symbols_new();
	struct mtx_module *mod = symbols_module(s, "/nonexistent/lib.so", NULL, 0);
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	uint64_t bias;
	cr_assert_eq(symbols_module_source(mod), SYMBOLS_MISSING);
	cr_assert_neq(symbols_bias(mod, 0x1000, 0, &bias), 0);
	cr_assert_eq(symbols_lookup(mod, 0x1000, frames), 0);
	cr_assert_str_eq(symbols_source_name(SYMBOLS_DYNSYM), "dynsym");
	symbols_free(s);
}

Test(symbols, cxx_names_are_demangled_and_c_names_left_alone)
{
	char *name = demangle("_ZN4work7CounterIlE3addEl");
	cr_assert_not_null(name, "libstdc++'s demangler not found");
	cr_assert_str_eq(name, "work::Counter<long>::add(long)");
	free(name);
	name = demangle("_ZN4work4stepEl.cold");
	cr_assert_not_null(name);
	cr_assert_str_eq(name, "work::step(long) [clone .cold]");
	free(name);
	cr_assert_null(demangle("main"));
	cr_assert_null(demangle("_start"));
	cr_assert_null(demangle("_Z!not-a-name"));
	cr_assert_null(demangle(NULL));
}
