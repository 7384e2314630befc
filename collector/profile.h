/*
 * collector/profile.h - the code side of a run: the address spaces of the
 * traced processes (executable mappings from MMAP2 records, copied at
 * fork, emptied at exec), CPU samples interned into the stack trie, and,
 * when the run ends, the naming of every code address seen (stack frames,
 * sync call sites) into functions, stacks, callsites and maps.
 *
 * It consumes the same time-ordered event stream as the thread model, so
 * a sample is placed in the address space its process had at that time.
 */
#ifndef MTX_COLLECTOR_PROFILE_H
#define MTX_COLLECTOR_PROFILE_H

#include "collector/event.h"
#include "collector/stacks.h"
#include "collector/sync/objects.h"
#include "collector/writer.h"

#include <stdint.h>

struct mtx_profile;

/* profile_new - a profile writing into @w. NULL when out of memory. */
struct mtx_profile *profile_new(struct mtx_writer *w);

/*
 * profile_event - feed one event in time order: FORK (a new process gets a
 * copy of its parent's mappings), COMM with exec (a new, empty address
 * space), MMAP, SAMPLE (a samples row; its stack interned). Other types are
 * ignored. Takes ownership of the path of MMAP and the pcs of SAMPLE.
 */
void profile_event(struct mtx_profile *p, const struct mtx_event *ev);

/* profile_unwind_dwarf - @on: samples carry a copy of the user stack
 * (--call-graph dwarf), to unwind with DWARF CFI (collector/unwind.c);
 * samples then say 'dwarf', or 'fp' when they fell back, and meta counts
 * why. Call before the first event. */
void profile_unwind_dwarf(struct mtx_profile *p, int on);

/* profile_space - the id of @pid's address space at @ts_ns (for interning
 * other stacks, e.g. of sync ops), created empty if unknown. 0 when out of
 * memory. */
uint32_t profile_space(struct mtx_profile *p, int32_t pid, uint64_t ts_ns);

/*
 * profile_function_at - the functions.id of the function whose code is at
 * @pc in @pid's address space at @ts_ns (the physical function, not one
 * inlined there), its row written when new; cached per (space, pc), so
 * call it in time order, as the maps are known up to then. -1 when out of
 * memory. profile_function_at_cb is the same with @profile a void pointer
 * (calls_function_fn, collector/calls.h).
 */
int64_t profile_function_at(struct mtx_profile *p, int32_t pid, uint64_t ts_ns, uint64_t pc);
int64_t profile_function_at_cb(void *profile, int32_t pid, uint64_t ts_ns, uint64_t pc);
/* profile_on_sample - @fn(@ctx, tid, pid, ts_ns, stack node) for each CPU
 * sample as it goes by (node: profile_stacks' leaf, 0: no stack). */
typedef void (*profile_sample_fn)(void *ctx, int32_t tid, int32_t pid, uint64_t ts_ns, uint32_t node);
void profile_on_sample(struct mtx_profile *p, profile_sample_fn fn, void *ctx);

/* profile_function_names - function @id's name (C++ demangled, as the
 * functions table has it) and its module's path, malloc'd: 0, or -1 (no
 * such function, out of memory) with both NULL. */
int profile_function_names(const struct mtx_profile *p, int64_t id, char **name, char **module);

/* profile_intern - the stack id of the user call chain @pcs (leaf first, as
 * perf gives it) of process @pid at @ts_ns, in time order with the other
 * events; 0 for none or out of memory. @pcs stays the caller's. */
uint32_t profile_intern(struct mtx_profile *p, int32_t pid, uint64_t ts_ns, const uint64_t *pcs, uint32_t nr);

/*
 * profile_data_name - what the data at @addr of @pid's address space at
 * @ts_ns is, in the files mapped there: the object symbol that holds it and
 * the offset in it ("log_mutex", "ledger::accounts+0x30", C++ names
 * demangled), or the file and the address in it ("libfoo.so+0x4010") where
 * no symbol does (as for any code address). malloc'd; NULL when no mapped
 * file holds it (heap, stacks) or out of memory.
 */
char *profile_data_name(struct mtx_profile *p, int32_t pid, uint64_t ts_ns, uint64_t addr);

/* profile_stacks - the stack trie (owned by the profile). */
struct mtx_stacks *profile_stacks(struct mtx_profile *p);

/*
 * profile_finish - name every stack node and the @nr_sites call sites of
 * the sync ops (collector/sync/objects.h; each one a stack node of its
 * own, its frames), and write functions, stacks (mtx's frames folded into
 * the wrapper called), callsites and maps, then the sync objects' names
 * (collector/sync/names.h), plus meta (samples, functions, modules without
 * a symbol table). Call after the sync tables are complete. Returns 0 or
 * the writer's -errno.
 */
int profile_finish(struct mtx_profile *p, const struct sync_callsite *sites, size_t nr_sites);

/* profile_free - release everything (rows already written stay). */
void profile_free(struct mtx_profile *p);

#endif
