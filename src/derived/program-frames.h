/*
 * src/derived/program-frames.h - where in the program's own code each
 * recorded stack and each sync call site is: the innermost of its frames
 * that is the program's (src/frames.h decides whose a frame is). The
 * switches' positions (timeline.c) and the derived tables stack_frames and
 * callsite_frames come from it, so that every report, the browser and SQL
 * name the same function for the same code.
 */
#ifndef MTX_PROGRAM_FRAMES_H
#define MTX_PROGRAM_FRAMES_H

#include <sqlite3.h>
#include <stdint.h>

struct mtx_timeline;
struct program_frames;

/*
 * program_frames_load - read the stacks, functions and callsites of @db
 * (a run.db from before callsites.stack_id and stacks.file/line too).
 * Returns 0 and the frames in *@out (program_frames_free them), or -errno.
 */
int program_frames_load(sqlite3 *db, struct program_frames **out);

/* program_frames_stack - the functions.id of the program's frame at or
 * above stacks row @stack_id; 0 when none is the program's. */
int64_t program_frames_stack(const struct program_frames *pf, int64_t stack_id);

/* program_frames_leaf - the functions.id of stacks row @stack_id itself
 * (its innermost function); 0 when there is no such row. */
int64_t program_frames_leaf(const struct program_frames *pf, int64_t stack_id);

/* program_frames_callsite - the functions.id of the program's frame at
 * sync call site @addr of process @pid, else of the function that holds
 * the call (a library's); 0 when the call site was not named. */
int64_t program_frames_callsite(const struct program_frames *pf, int64_t pid, int64_t addr);

/* program_frames_op - the stacks.id of the frame a sync op of process
 * @pid is shown made in (as stack_frames and callsite_frames say, and the
 * reports show it): the program's frame of its stack @stack_id (collect
 * --sync-stacks; 0: none) when it has one, else its call site @callsite's
 * frame (program_frames_callsite); 0 when neither was named. */
int64_t program_frames_op(const struct program_frames *pf, int64_t pid, int64_t callsite, int64_t stack_id);

void program_frames_free(struct program_frames *pf);

/* analysis_program_frames - fill stack_frames and callsite_frames from
 * @tl's frames. */
int analysis_program_frames(sqlite3 *db, const struct mtx_timeline *tl, char **err);

#endif
