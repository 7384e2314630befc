/*
 * collector/output.h - the output file of a collection: keep the previous
 * run as FILE.old (as perf keeps perf.data.old), and put everything back
 * when the collection fails before the program starts.
 *
 * An SQLite file in WAL mode is three files (FILE, FILE-wal, FILE-shm): a
 * collector that was killed leaves its last commits in FILE-wal, and
 * SQLite replays whatever FILE-wal lies beside FILE when FILE is opened.
 * So the three always move together: FILE.old gets FILE's WAL as
 * FILE.old-wal, a new FILE never finds an old FILE-wal, and the -shm (an
 * index of the WAL, rebuilt from it) is removed.
 */
#ifndef MTX_COLLECTOR_OUTPUT_H
#define MTX_COLLECTOR_OUTPUT_H

#include <pthread.h>

struct mtx_output {
	const char *path;
	char *old;  /* path.old */
	char *held; /* an earlier path.old, set aside until the program runs */
	int kept;   /* path was moved to path.old */
	int removing;      /* remover is removing held */
	pthread_t remover;
};

/*
 * output_prepare - make @path free for a new run: refuse a directory or
 * anything but a regular file; move an existing run to @path.old, setting
 * an earlier @path.old aside. Returns 0, or -errno with a message in @err
 * (nothing moved).
 */
int output_prepare(struct mtx_output *out, const char *path, char **err);

/* output_started - the program runs: the earlier @path.old set aside is
 * superseded (removed, on a thread of its own: output_free waits for it),
 * and the previous run is said to be @path.old. */
void output_started(struct mtx_output *out);

/* output_abandon - nothing was recorded: remove the new file and put the
 * previous runs back where they were. */
void output_abandon(struct mtx_output *out);

/* output_give_to - the new run (with its WAL and index, when there) belongs
 * to @uid/@gid: mtx ran under sudo for them (see mtx collect --user). */
void output_give_to(struct mtx_output *out, unsigned uid, unsigned gid);

/* output_free - wait for output_started's removal; free what
 * output_prepare allocated. */
void output_free(struct mtx_output *out);

#endif
