/*
 * collector/elf-symbols.h - what a uprobe needs from an ELF file, read with
 * libelf: its function symbols with the file offset of each (the kernel
 * places a uprobe at an inode and a file offset, not at an address), and
 * the shared libraries it asks for (DT_NEEDED), found the way the dynamic
 * loader would find them.
 *
 * Used by the sync fallback (collector/sync/uprobes.c); meant for any other
 * uprobe user too (function tracing by pattern, attaching to a process).
 */
#ifndef MTX_COLLECTOR_ELF_SYMBOLS_H
#define MTX_COLLECTOR_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct elf_symbol {
	const char *name;    /* valid during the callback only */
	uint64_t addr;       /* st_value: link-time virtual address */
	uint64_t size;       /* st_size */
	uint64_t offset;     /* where its first byte is in the file */
	int global;          /* STB_GLOBAL or STB_WEAK (0: STB_LOCAL) */
};

/* Return nonzero to stop the walk (elf_symbols_each then returns it). */
typedef int (*elf_symbol_fn)(void *ctx, const struct elf_symbol *sym);

/**
 * elf_symbols_each - call @fn for every defined function symbol (STT_FUNC)
 * of the ELF file @path, from .symtab and .dynsym (a name in both is seen
 * twice), that lies in an executable PT_LOAD segment. A symbol of size 0
 * (assembly, gcc's crtstuff) is given the size up to the next function.
 *
 * Return: 0 when all were walked, @fn's nonzero value when it stopped the
 * walk, or -errno with a message in @err (caller frees) when @path cannot
 * be read as ELF.
 */
int elf_symbols_each(const char *path, elf_symbol_fn fn, void *ctx, char **err);

/* Called with each library path found; nonzero stops the walk. */
typedef int (*elf_library_fn)(void *ctx, const char *path);

/**
 * elf_needed_each - call @fn with the path of each library the dynamic
 * executable or library @path names in DT_NEEDED, in that order, searched
 * in its DT_RPATH/DT_RUNPATH ($ORIGIN expanded) and then the system's
 * library directories. Names not found are skipped. A static program has
 * none.
 *
 * Return: 0, @fn's nonzero value, or -errno when @path cannot be read.
 */
int elf_needed_each(const char *path, elf_library_fn fn, void *ctx);

/* Called with each name an ELF file imports; nonzero stops the walk. */
typedef int (*elf_import_fn)(void *ctx, const char *name);

/**
 * elf_imports_each - call @fn with the name of each symbol the ELF file
 * @path imports (an undefined .dynsym entry: what the dynamic loader binds
 * to another object's definition).
 *
 * Return: 0, @fn's nonzero value, or -errno when @path cannot be read.
 */
int elf_imports_each(const char *path, elf_import_fn fn, void *ctx);

#endif
