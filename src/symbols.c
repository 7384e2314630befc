/*
 * src/symbols.c - see symbols.h.
 *
 * Each module gets its own Dwfl session with the file reported at base 0,
 * so libdwfl's addresses are the file's own (p_vaddr) addresses whatever
 * the file type. libdwfl picks the symbol table itself: the file's
 * .symtab, else the one of a separate debug file that
 * dwfl_standard_find_debuginfo finds (build-id under /usr/lib/debug/.build-id,
 * or .gnu_debuglink), else .dynsym; we only find out afterwards which it
 * was, to say so (symbols_module_source).
 *
 * Inlined frames come from dwarf_getscopes at the address: the scopes run
 * from the innermost DW_TAG_inlined_subroutine out to the
 * DW_TAG_subprogram that physically holds the code.
 */
#include "config.h"
#include "src/symbols.h"
#include "src/debug-cache.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A data object of a module's symbol table (STT_OBJECT). */
struct data_symbol {
	uint64_t addr, size;
	const char *name; /* owned by the module's Dwfl */
};

struct mtx_module {
	struct mtx_module *next;
	char *path;
	uint8_t build_id[32];
	size_t build_id_size;
	Dwfl *dwfl;            /* NULL when the file could not be used */
	Dwfl_Module *mod;
	Elf *elf;              /* the main file (owned by dwfl) */
	enum symbols_source source;
	struct data_symbol *data; /* by addr; read at the first symbols_data */
	size_t nr_data;
	bool data_read;
};

struct mtx_symbols {
	struct mtx_module *modules;
};

static char *debuginfo_path; /* NULL: libdwfl's default ":.debug:/usr/lib/debug" */

/* A separate debug file: its uncompressed copy from the cache
 * (src/debug-cache.h), else libdwfl's own search, whose find is then
 * copied for the next run. (The copy cannot serve the run that makes it:
 * libdwfl keeps the file it validated, whatever this returns.) */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);
	int fd = n > 0 ? debug_cache_find(id, (size_t)n, debuginfo_file_name) : -1;
	if (fd >= 0)
		return fd;
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (fd >= 0 && n > 0)
		debug_cache_add(fd, id, (size_t)n);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

const char *symbols_source_name(enum symbols_source src)
{
	static const char *const names[] = {
		[SYMBOLS_SYMTAB] = "symtab", [SYMBOLS_DEBUGINFO] = "debuginfo", [SYMBOLS_DYNSYM] = "dynsym",
		[SYMBOLS_NONE] = "none",     [SYMBOLS_MISSING] = "missing",     [SYMBOLS_CHANGED] = "changed",
	};
	return src <= SYMBOLS_CHANGED ? names[src] : "?";
}

struct mtx_symbols *symbols_new(void)
{
	return calloc(1, sizeof(struct mtx_symbols));
}

static int has_section(Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size > 0)
			return 1;
	}
	return 0;
}

/* Open @m's file and find out where its symbols will come from. */
static void module_open(struct mtx_module *m)
{
	const unsigned char *id;
	GElf_Addr vaddr, bias;
	const char *mainfile = NULL, *debugfile = NULL;
	int n;

	m->source = SYMBOLS_MISSING;
	m->dwfl = dwfl_begin(&callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, m->path, m->path, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod || !(m->elf = dwfl_module_getelf(m->mod, &bias))) {
		dwfl_end(m->dwfl);
		m->dwfl = NULL;
		m->mod = NULL;
		return;
	}
	n = dwfl_module_build_id(m->mod, &id, &vaddr);
	if (m->build_id_size && (n != (int)m->build_id_size || memcmp(id, m->build_id, (size_t)n) != 0)) {
		m->source = SYMBOLS_CHANGED;
		return;
	}
	if (has_section(m->elf, SHT_SYMTAB)) {
		m->source = SYMBOLS_SYMTAB;
		return;
	}
	/* The symbol table's search finds the separate debug file too, and,
	 * unlike dwfl_module_getdwarf, does not read its (compressed) DWARF:
	 * ~80 ms for libc's, paid at the end of every run whether or not a
	 * libc address is ever named. Names look DWARF up when they need it. */
	dwfl_module_getsymtab(m->mod);
	dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	if (debugfile && (!mainfile || strcmp(debugfile, mainfile) != 0))
		m->source = SYMBOLS_DEBUGINFO;
	else if (has_section(m->elf, SHT_DYNSYM))
		m->source = SYMBOLS_DYNSYM;
	else
		m->source = SYMBOLS_NONE;
}

struct mtx_module *symbols_module(struct mtx_symbols *s, const char *path, const uint8_t *build_id,
				  size_t build_id_size)
{
	struct mtx_module *m;
	if (build_id_size > sizeof(m->build_id))
		build_id_size = 0;
	for (m = s->modules; m; m = m->next)
		if (!strcmp(m->path, path) && m->build_id_size == build_id_size &&
		    (!build_id_size || !memcmp(m->build_id, build_id, build_id_size)))
			return m;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		return NULL;
	}
	if (build_id_size)
		memcpy(m->build_id, build_id, build_id_size);
	m->build_id_size = build_id_size;
	module_open(m);
	m->next = s->modules;
	s->modules = m;
	return m;
}

enum symbols_source symbols_module_source(const struct mtx_module *m)
{
	return m->source;
}

int symbols_bias(struct mtx_module *m, uint64_t map_start, uint64_t pgoff, uint64_t *bias)
{
	if (!m->elf || m->source == SYMBOLS_CHANGED)
		return -ENOENT;
	return symbols_elf_bias(m->elf, map_start, pgoff, bias);
}

int symbols_elf_bias(Elf *elf, uint64_t map_start, uint64_t pgoff, uint64_t *bias)
{
	size_t nr;
	if (elf_getphdrnum(elf, &nr) != 0)
		return -ENOENT;
	for (size_t i = 0; i < nr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* The mapping starts at the page holding p_offset: pgoff is
		 * p_offset rounded down, map_start p_vaddr rounded down alike. */
		if (pgoff >= (ph.p_offset & ~0xfffull) &&
		    pgoff < ph.p_offset + ph.p_filesz) {
			*bias = map_start - pgoff - (ph.p_vaddr - ph.p_offset);
			return 0;
		}
	}
	return -ENOENT;
}

/* The name of a DWARF function DIE, following abstract_origin/specification. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) && (name = dwarf_formstring(&attr)))
		return name;
	if (dwarf_attr_integrate(die, DW_AT_name, &attr) && (name = dwarf_formstring(&attr)))
		return name;
	return NULL;
}

static void die_decl(Dwarf_Die *die, struct mtx_frame *f)
{
	int line = 0;
	f->file = dwarf_decl_file(die);
	if (dwarf_decl_line(die, &line) == 0)
		f->line = line;
}

/* Where the inlined instance @die was called from, in the function it was
 * inlined into: its DW_AT_call_file (an index into its unit's files) and
 * DW_AT_call_line. */
static void die_call(Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word index, n;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nr_files;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &n) == 0)
		*line = (int)n;
	if (dwarf_attr(die, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &index) == 0 &&
	    dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, &nr_files) == 0 && index < nr_files)
		*file = dwarf_filesrc(files, index, NULL, NULL);
}

int symbols_lookup(struct mtx_module *m, uint64_t addr, struct mtx_frame *frames)
{
	struct mtx_frame inner[SYMBOLS_MAX_FRAMES];
	const char *symbol = NULL, *call_file = NULL;
	Dwarf_Addr dwbias = 0;
	Dwarf_Die *cu, *scopes = NULL;
	int n = 0, nr_scopes, physical = 0, call_line = 0;

	if (!m->mod || m->source == SYMBOLS_CHANGED)
		return 0;
	{
		GElf_Off off;
		GElf_Sym sym;
		symbol = dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
	}
	/* DWARF scopes, innermost first, up to the physical function. */
	cu = dwfl_module_addrdie(m->mod, addr, &dwbias);
	nr_scopes = cu ? dwarf_getscopes(cu, addr - dwbias, &scopes) : 0;
	/* Past an inlined function dwarf_getscopes goes on with the scopes
	 * of its abstract definition (a namespace, a class, the file), not
	 * with the function it was inlined into: take the innermost inlined
	 * instance's own parents instead. */
	for (int i = 0; i < nr_scopes; i++) {
		Dwarf_Die *chain = NULL;
		int nr_chain;

		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		nr_chain = dwarf_getscopes_die(&scopes[i], &chain);
		if (nr_chain > 0) {
			free(scopes);
			scopes = chain;
			nr_scopes = nr_chain;
		} else {
			free(chain);
		}
		break;
	}
	/* The innermost frame is at the line of @addr; each outer one at the
	 * line its inner one was called (inlined) from. */
	{
		Dwfl_Line *at = dwfl_module_getsrc(m->mod, addr);
		call_file = at ? dwfl_lineinfo(at, NULL, &call_line, NULL, NULL, NULL) : NULL;
	}
	for (int i = 0; i < nr_scopes && n < SYMBOLS_MAX_FRAMES - 1; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		inner[n] = (struct mtx_frame){ .name = die_name(&scopes[i]), .at_file = call_file, .at_line = call_line };
		die_decl(&scopes[i], &inner[n]);
		if (!inner[n].name)
			inner[n].name = "[inlined]";
		n++;
		if (tag == DW_TAG_subprogram) {
			physical = 1;
			break;
		}
		die_call(&scopes[i], &call_file, &call_line);
	}
	free(scopes);
	/* The physical function is named by its ELF symbol when there is
	 * one (what the linker and every other tool call it); when DWARF
	 * showed only inlined code, the symbol is the function around it. */
	if (physical && symbol)
		inner[n - 1].name = symbol;
	else if (symbol)
		inner[n++] = (struct mtx_frame){ .name = symbol, .at_file = call_file, .at_line = call_line };
	for (int i = 0; i < n; i++)
		frames[i] = inner[n - 1 - i];
	return n;
}

static int data_symbol_cmp(const void *a, const void *b)
{
	const struct data_symbol *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* @m's data objects, sorted by address. */
static void read_data_symbols(struct mtx_module *m)
{
	int nr = m->mod ? dwfl_module_getsymtab(m->mod) : 0;
	m->data_read = true;
	if (nr <= 0 || !(m->data = calloc((size_t)nr, sizeof(*m->data))))
		return;
	for (int i = 1; i < nr; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, NULL, NULL);
		if (name && *name && GELF_ST_TYPE(sym.st_info) == STT_OBJECT && shndx != SHN_UNDEF)
			m->data[m->nr_data++] = (struct data_symbol){ addr, sym.st_size, name };
	}
	if (m->nr_data > 1)
		qsort(m->data, m->nr_data, sizeof(*m->data), data_symbol_cmp);
}

bool symbols_holds(struct mtx_module *m, uint64_t addr)
{
	size_t nr;
	if (!m->elf || m->source == SYMBOLS_CHANGED || elf_getphdrnum(m->elf, &nr) != 0)
		return false;
	for (size_t i = 0; i < nr; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr - ph.p_vaddr < ph.p_memsz)
			return true;
	}
	return false;
}

int symbols_data(struct mtx_module *m, uint64_t addr, const char **name, uint64_t *offset)
{
	size_t lo = 0, hi;
	if (m->source == SYMBOLS_CHANGED)
		return -ENOENT;
	if (!m->data_read)
		read_data_symbols(m);
	/* the last object that begins at or before @addr */
	for (hi = m->nr_data; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->data[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* It may end before @addr where one that begins before it holds it
	 * (a struct and a member's own symbol): look back a little. */
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 16; seen++) {
		const struct data_symbol *d = &m->data[i];
		if (addr - d->addr < d->size || addr == d->addr) {
			*name = d->name;
			*offset = addr - d->addr;
			return 0;
		}
	}
	return -ENOENT;
}

void symbols_free(struct mtx_symbols *s)
{
	if (!s)
		return;
	while (s->modules) {
		struct mtx_module *m = s->modules;
		s->modules = m->next;
		if (m->dwfl)
			dwfl_end(m->dwfl);
		free(m->data);
		free(m->path);
		free(m);
	}
	free(s);
}
