/*
 * src/progress.h - what mtx is doing while the user waits for it, and how
 * far it is: after the traced program's exit, mtx collect drains, resolves,
 * names and indexes for seconds to minutes. One status line on stderr
 * (log_status: only on a terminal, never with -q), "mtx: finishing run.db:
 * step 2 of 5, completing the sync tables: 41% (12 s)", redrawn by a thread
 * of its own every quarter second so that the time moves on while a step
 * works, and cleared at the end. The steps need not know it is shown.
 */
#ifndef MTX_PROGRESS_H
#define MTX_PROGRESS_H

#include <stdint.h>

/* progress_begin - the work of @nr_steps steps on @what (the output file)
 * begins; shows nothing yet. */
void progress_begin(const char *what, int nr_steps);

/* progress_step - step @step (from 1) of those begun, @name ("naming
 * functions"; a literal: kept, not copied), begins: its part and count
 * are reset and the line is drawn at once. Nothing without progress_begin. */
void progress_step(int step, const char *name);

/* progress_part - the part of the step under way ("indexing"; a literal),
 * NULL for none. */
void progress_part(const char *part);

/* progress_count - @done of @total units of the step's work are done
 * (shown as a percentage). Cheap enough for a loop over rows: it only
 * stores two numbers. */
void progress_count(uint64_t done, uint64_t total);

/* progress_end - the work is over: clear the line, stop the thread. */
void progress_end(void);

#endif
