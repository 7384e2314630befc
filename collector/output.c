/* collector/output.c - see output.h. */
#include "config.h"
#include "collector/output.h"
#include "src/log.h"
#include "src/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* @path with @suffix appended (malloc'd), or NULL. */
static char *suffixed(const char *path, const char *suffix)
{
	char *s;
	return asprintf(&s, "%s%s", path, suffix) < 0 ? NULL : s;
}

/* Remove the WAL and its index beside @db (absent: fine). */
static void remove_sides(const char *db)
{
	char *wal = suffixed(db, "-wal"), *shm = suffixed(db, "-shm");
	if (wal)
		unlink(wal);
	if (shm)
		unlink(shm);
	free(wal);
	free(shm);
}

/* Move the database @from, with its WAL, to @to; @to's own sides go.
 * Returns 0 or -errno (nothing moved). */
static int move_db(const char *from, const char *to)
{
	char *from_wal = suffixed(from, "-wal"), *to_wal = suffixed(to, "-wal");
	int rc = 0;

	if (!from_wal || !to_wal) {
		rc = -ENOMEM;
		goto out;
	}
	remove_sides(to);
	if (rename(from, to) < 0) {
		rc = -errno;
		goto out;
	}
	if (rename(from_wal, to_wal) < 0 && errno != ENOENT)
		log_warn("%s: cannot move along with %s: %s", from_wal, from, strerror(errno));
	remove_sides(from);
out:
	free(from_wal);
	free(to_wal);
	return rc;
}

static int exists(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0;
}

int output_prepare(struct mtx_output *out, const char *path, char **err)
{
	struct stat sb;
	int rc;

	memset(out, 0, sizeof(*out));
	out->path = path;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		error_set(err, "%s: %s: give a file name to write the run to", path,
				S_ISDIR(sb.st_mode) ? "is a directory" : "is not a regular file");
		return S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
	}
	out->old = suffixed(path, ".old");
	if (asprintf(&out->held, "%s.old.mtx-%d", path, (int)getpid()) < 0)
		out->held = NULL;
	if (!out->old || !out->held) {
		output_free(out);
		return -ENOMEM;
	}
	if (!exists(path)) {
		remove_sides(path); /* a WAL without its file must not meet a new one */
		return 0;
	}
	if (exists(out->old) && (rc = move_db(out->old, out->held)) < 0)
		goto fail;
	if ((rc = move_db(path, out->old)) < 0) {
		if (exists(out->held))
			move_db(out->held, out->old);
		goto fail;
	}
	/* said once the program runs: until then it may go back */
	out->kept = 1;
	return 0;
fail:
	error_set(err, "cannot keep the existing %s as %s: %s", path, out->old, strerror(-rc));
	output_free(out);
	return rc;
}

static void *remove_held(void *arg)
{
	const char *held = arg;
	unlink(held);
	remove_sides(held);
	return NULL;
}

void output_started(struct mtx_output *out)
{
	if (out->kept)
		log_info("kept the previous %s as %s", out->path, out->old);
	if (!out->held || !exists(out->held))
		return;
	/* Freeing a large file's blocks takes the kernel about a second per
	 * 300 MB here, and the program runs meanwhile: the collector's loop
	 * must be draining its rings, not waiting for unlink. */
	if (pthread_create(&out->remover, NULL, remove_held, out->held) == 0)
		out->removing = 1;
	else
		remove_held(out->held);
}

void output_abandon(struct mtx_output *out)
{
	if (!out->path)
		return;
	unlink(out->path);
	remove_sides(out->path);
	if (out->kept)
		move_db(out->old, out->path);
	if (out->held && exists(out->held))
		move_db(out->held, out->old);
}

void output_give_to(struct mtx_output *out, unsigned uid, unsigned gid)
{
	static const char *const sides[] = { "", "-wal", "-shm" };

	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		char *p = suffixed(out->path, sides[i]);

		if (p && chown(p, (uid_t)uid, (gid_t)gid) < 0 && errno != ENOENT)
			log_warn("%s: cannot give it to uid %u: %s", p, uid, strerror(errno));
		free(p);
	}
}

void output_free(struct mtx_output *out)
{
	if (out->removing)
		pthread_join(out->remover, NULL);
	out->removing = 0;
	free(out->old);
	free(out->held);
	out->old = out->held = NULL;
}
