/*
 * src/symbols.h - code addresses to functions: ELF symbol tables (libelf,
 * through libdwfl), DWARF file:line and inlined frames (libdw), separate
 * debug files found by build-id or debuglink under /usr/lib/debug, and,
 * for stripped files, the dynamic symbols. One struct mtx_symbols caches
 * every module (executable or shared library) it has opened.
 *
 * Addresses here are *file* addresses: the run-time address minus the
 * mapping's load bias (symbols_bias). So a PIE executable, a shared library
 * and a non-PIE executable are all looked up the same way.
 */
#ifndef MTX_SYMBOLS_H
#define MTX_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mtx_symbols;
struct mtx_module;

/* Where a module's function names come from. */
enum symbols_source {
	SYMBOLS_SYMTAB,    /* the file's own .symtab */
	SYMBOLS_DEBUGINFO, /* a separate debug file (build-id / debuglink) */
	SYMBOLS_DYNSYM,    /* stripped: only the dynamic symbols (exported functions) */
	SYMBOLS_NONE,      /* no symbols at all */
	SYMBOLS_MISSING,   /* the file cannot be opened, or is not ELF */
	SYMBOLS_CHANGED,   /* its build-id differs from the one mapped in the run */
};

/* symbols_source_name - "symtab", "debuginfo", "dynsym", "none", "missing", "changed". */
const char *symbols_source_name(enum symbols_source src);

/* One frame at an address: the function, where its definition is, and
 * where in it the address is. */
struct mtx_frame {
	const char *name;  /* owned by the module cache; valid until symbols_free */
	const char *file;  /* declaration file, NULL if no DWARF */
	int line;          /* declaration line, 0 if unknown */
	/* The source line the address is at in this function: for a function
	 * with another inlined into it there, the line of that call (as
	 * addr2line -i prints them); NULL and 0 when DWARF does not say. */
	const char *at_file;
	int at_line;
};

/* Most inlined levels reported for one address (outermost kept first). */
#define SYMBOLS_MAX_FRAMES 16

/* symbols_new - an empty cache, or NULL when out of memory. */
struct mtx_symbols *symbols_new(void);

/*
 * symbols_module - the module at @path (opened once and cached). When
 * @build_id (@build_id_size bytes) is given and the file's differs, the
 * module is marked SYMBOLS_CHANGED and looks nothing up: the file was
 * replaced after the run. Never NULL unless out of memory.
 */
struct mtx_module *symbols_module(struct mtx_symbols *s, const char *path, const uint8_t *build_id,
				  size_t build_id_size);

/* symbols_module_source - where @m's names come from (see above). */
enum symbols_source symbols_module_source(const struct mtx_module *m);

/*
 * symbols_bias - the load bias of a mapping of @m: run-time address minus
 * file address, from the mapping's start and file offset (@pgoff) and the
 * PT_LOAD segment that holds that offset. Returns 0 and sets @bias, or
 * -ENOENT when @m cannot be read or no segment holds @pgoff.
 */
int symbols_bias(struct mtx_module *m, uint64_t map_start, uint64_t pgoff, uint64_t *bias);

/* symbols_elf_bias - the same for a mapping of the ELF file @elf opened
 * elsewhere (collector/unwind.c). */
struct Elf;
int symbols_elf_bias(struct Elf *elf, uint64_t map_start, uint64_t pgoff, uint64_t *bias);

/*
 * symbols_lookup - the frames at file address @addr of @m, outermost first:
 * the function that holds @addr, then each function inlined into it down
 * to the innermost one that @addr is in. Returns how many (at most
 * SYMBOLS_MAX_FRAMES, 0 when no symbol covers @addr).
 */
int symbols_lookup(struct mtx_module *m, uint64_t addr, struct mtx_frame *frames);

/* symbols_holds - whether file address @addr lies in @m's memory image
 * (a PT_LOAD segment, its .bss included). */
bool symbols_holds(struct mtx_module *m, uint64_t addr);

/*
 * symbols_data - the data object (an STT_OBJECT symbol of the symbol table
 * symbols_lookup uses) that holds file address @addr: its name (as in the
 * table: C++ names mangled; owned by the module cache) and @addr's offset in
 * it. Returns 0, or -ENOENT when no object symbol covers @addr.
 */
int symbols_data(struct mtx_module *m, uint64_t addr, const char **name, uint64_t *offset);

/* symbols_free - release every module and name. */
void symbols_free(struct mtx_symbols *s);

#endif
