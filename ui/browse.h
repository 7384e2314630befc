/*
 * ui/browse.h - mtx browse's main loop: the main views, the stack of views
 * opened from them, keys to actions to reactions, one frame per key.
 */
#ifndef MTX_BROWSE_H
#define MTX_BROWSE_H

#include "src/run-state.h"

#include <sqlite3.h>
#include <stdint.h>

/*
 * browse_run - run the browser on the open run database @db (read-only,
 * derived tables present), whose state analysis_open read into @rs, until
 * the user quits; an incomplete run says so on a line of its own under the
 * title, and what it lacks is left unknown in the views. @start_ns (CLOCK_MONOTONIC)
 * is when the command started: with MTX_BROWSE_TIMING=FILE set, the time to
 * the first frame and each key's time to its frame are appended to FILE
 * (bench/browse-speed.sh reads them). Returns 0, or -1 with a one-line
 * reason in @err (static text) when the terminal cannot be used.
 */
int browse_run(sqlite3 *db, const char *path, const struct run_state *rs, uint64_t start_ns, const char **err);

/*
 * browse_live - run the browser on a run being recorded: the live view of
 * what mtx collect --control @sock answers (ui/view-live.c), its figures
 * kept in @db (ui/live-tables.h, created). As browse_run otherwise; the
 * first view fails (-1, @err) when nothing answers at @sock.
 */
int browse_live(sqlite3 *db, const char *sock, uint64_t start_ns, const char **err);

/* browse_print_keys - the action table as text, one action a line:
 * keys, action, where, help (for 'mtx browse --keys' and the man page test). */
void browse_print_keys(void);

#endif
