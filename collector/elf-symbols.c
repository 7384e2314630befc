/*
 * collector/elf-symbols.c - see elf-symbols.h.
 *
 * A symbol's file offset is its address minus the virtual address of the
 * PT_LOAD segment holding it, plus that segment's file offset: the same
 * arithmetic for executables (ET_EXEC, absolute addresses) and shared
 * objects or PIEs (ET_DYN, addresses relative to the load base).
 */
#include "config.h"
#include "collector/elf-symbols.h"
#include "src/error.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_file_open(struct elf_file *f, const char *path)
{
	f->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		return -ENOEXEC;
	}
	return 0;
}

static void elf_file_close(struct elf_file *f)
{
	elf_end(f->elf);
	close(f->fd);
}

/* The file offset of @addr, from the PT_LOAD that holds it (executable
 * ones only when @exec). Returns 0 or -ENOENT. */
static int addr_offset(Elf *elf, uint64_t addr, int exec, uint64_t *offset)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (exec && !(ph.p_flags & PF_X))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Walk every symbol of .symtab and .dynsym; @fn gets the raw entry. */
typedef int (*raw_symbol_fn)(void *ctx, Elf *elf, const GElf_Sym *sym, const char *name);

/* The symbol versions of .dynsym (SHT_GNU_versym), or NULL. */
static Elf_Data *dynsym_versions(Elf *elf)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static int walk_symbols(Elf *elf, raw_symbol_fn fn, void *ctx)
{
	Elf_Data *versions = dynsym_versions(elf);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t count;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < count; i++) {
			GElf_Versym ver;
			GElf_Sym sym;
			const char *name;
			int rc;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			/* A hidden version (pthread_cond_wait@GLIBC_2.2.5) is
			 * not what a program links to today. */
			if (sh.sh_type == SHT_DYNSYM && versions && gelf_getversym(versions, (int)i, &ver) &&
			    (ver & 0x8000))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			rc = fn(ctx, elf, &sym, name);
			if (rc)
				return rc;
		}
	}
	return 0;
}

struct func_walk {
	elf_symbol_fn fn;
	void *ctx;
	uint64_t *starts;   /* every function's address, sorted */
	size_t nr_starts, cap_starts;
};

static int collect_start(void *ctx, Elf *elf, const GElf_Sym *sym, const char *name)
{
	struct func_walk *w = ctx;
	uint64_t *p;
	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC)
		return 0;
	if (w->nr_starts == w->cap_starts) {
		size_t cap = w->cap_starts ? w->cap_starts * 2 : 1024;
		p = realloc(w->starts, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		w->starts = p;
		w->cap_starts = cap;
	}
	w->starts[w->nr_starts++] = sym->st_value;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The size of a function whose symbol says 0 (hand-written assembly,
 * gcc's crtstuff): up to the next function, 0 if it is the last. */
static uint64_t implied_size(const struct func_walk *w, uint64_t addr)
{
	size_t lo = 0, hi = w->nr_starts;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->starts[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->nr_starts ? w->starts[lo] - addr : 0;
}

static int on_func(void *ctx, Elf *elf, const GElf_Sym *sym, const char *name)
{
	struct func_walk *w = ctx;
	struct elf_symbol s;
	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC)
		return 0;
	s.size = sym->st_size ? sym->st_size : implied_size(w, sym->st_value);
	if (s.size == 0 || addr_offset(elf, sym->st_value, 1, &s.offset))
		return 0;
	s.name = name;
	s.addr = sym->st_value;
	s.global = GELF_ST_BIND(sym->st_info) != STB_LOCAL;
	return w->fn(w->ctx, &s);
}

int elf_symbols_each(const char *path, elf_symbol_fn fn, void *ctx, char **err)
{
	struct elf_file f;
	struct func_walk w = { fn, ctx, NULL, 0, 0 };
	int rc = elf_file_open(&f, path);
	if (rc) {
		error_set(err, "%s: %s", path, rc == -ENOEXEC ? "not an ELF file" : strerror(-rc));
		return rc;
	}
	rc = walk_symbols(f.elf, collect_start, &w);
	if (!rc) {
		/* A file without function symbols (a stripped static program)
		 * leaves starts NULL, which qsort must not be given. */
		if (w.nr_starts)
			qsort(w.starts, w.nr_starts, sizeof(*w.starts), cmp_u64);
		rc = walk_symbols(f.elf, on_func, &w);
	}
	free(w.starts);
	elf_file_close(&f);
	return rc;
}

/* Look for @name in the ':'-separated @dirs ($ORIGIN = @origin) and call
 * @fn with the first readable one. Returns 1 if found (fn's value in *rc). */
static int search_dirs(const char *dirs, const char *origin, const char *name, elf_library_fn fn,
		       void *ctx, int *rc)
{
	char path[PATH_MAX];
	while (dirs && *dirs) {
		size_t len = strcspn(dirs, ":");
		if (len >= 7 && strncmp(dirs, "$ORIGIN", 7) == 0)
			snprintf(path, sizeof(path), "%s%.*s/%s", origin, (int)len - 7, dirs + 7, name);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)len, dirs, name);
		if (len && access(path, R_OK) == 0) {
			*rc = fn(ctx, path);
			return 1;
		}
		dirs += len + (dirs[len] == ':');
	}
	return 0;
}

/* Where Debian's loader looks after the program's own paths (ld.so.conf
 * lists the multiarch directories first). */
static const char system_lib_dirs[] =
	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib:"
	"/usr/local/lib";

int elf_needed_each(const char *path, elf_library_fn fn, void *ctx)
{
	struct elf_file f;
	Elf_Scn *scn = NULL;
	char origin[PATH_MAX];
	const char *runpath = NULL;
	const char *slash;
	int rc = elf_file_open(&f, path);
	if (rc)
		return rc;
	slash = strrchr(path, '/');
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");

	while ((scn = elf_nextscn(f.elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		/* First the search path, then the names in order. */
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (gelf_getdyn(data, (int)i, &dyn) &&
			    (dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH))
				runpath = elf_strptr(f.elf, sh.sh_link, dyn.d_un.d_val);
		}
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && rc == 0; i++) {
			GElf_Dyn dyn;
			const char *name;
			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(f.elf, sh.sh_link, dyn.d_un.d_val);
			if (!name)
				continue;
			if (strchr(name, '/')) {
				if (access(name, R_OK) == 0)
					rc = fn(ctx, name);
				continue;
			}
			if (!search_dirs(runpath, origin, name, fn, ctx, &rc))
				search_dirs(system_lib_dirs, origin, name, fn, ctx, &rc);
		}
		break;
	}
	elf_file_close(&f);
	return rc;
}

int elf_imports_each(const char *path, elf_import_fn fn, void *ctx)
{
	struct elf_file f;
	Elf_Scn *scn = NULL;
	int rc = elf_file_open(&f, path);
	if (rc)
		return rc;
	while (rc == 0 && (scn = elf_nextscn(f.elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize && rc == 0; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
				continue;
			name = elf_strptr(f.elf, sh.sh_link, sym.st_name);
			if (name && *name)
				rc = fn(ctx, name);
		}
	}
	elf_file_close(&f);
	return rc;
}
