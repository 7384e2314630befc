/* collector/cal-store.c - see cal-store.h. */
#include "config.h"
#include "collector/cal-store.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_LINES 64

void cal_store_path(char *out, size_t size)
{
	const char *env = getenv("MTX_CALIBRATION"), *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (env && *env)
		snprintf(out, size, "%s", env);
	else if (geteuid() == 0)
		snprintf(out, size, "/var/lib/mtx/calibration");
	else if (state && *state)
		snprintf(out, size, "%s/mtx/calibration", state);
	else
		snprintf(out, size, "%s/.local/state/mtx/calibration", home ? home : ".");
}

/* "machine HOST KERNEL CPUS CPU-MODEL": what the figures hold for. */
static void machine_line(char *out, size_t size)
{
	char model[128] = "unknown", line[256];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	snprintf(out, size, "machine %s %s %ld %s", u.nodename, u.release, sysconf(_SC_NPROCESSORS_ONLN), model);
}

/* The file's lines into @lines (@n of them) when its machine line is
 * this machine's; 0 lines otherwise. */
static size_t read_lines(const char *path, const char *machine, char lines[MAX_LINES][256])
{
	FILE *f = fopen(path, "re");
	size_t n = 0;
	if (!f)
		return 0;
	while (n < MAX_LINES && fgets(lines[n], sizeof(lines[n]), f)) {
		lines[n][strcspn(lines[n], "\n")] = 0;
		n++;
	}
	fclose(f);
	return n && !strcmp(lines[0], machine) ? n : 0;
}

/* mkdir -p of @path's directory. */
static void make_dirs(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(dir, 0755);
		*p = '/';
	}
}

int cal_store_save(const char *key, uint64_t ns)
{
	static char lines[MAX_LINES][256];
	char path[PATH_MAX], tmp[PATH_MAX + 8], machine[256];
	size_t n, klen = strlen(key);
	FILE *f;
	cal_store_path(path, sizeof(path));
	machine_line(machine, sizeof(machine));
	n = read_lines(path, machine, lines);
	if (!n)
		snprintf(lines[n++], sizeof(lines[0]), "%s", machine);
	make_dirs(path);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if (!(f = fopen(tmp, "we")))
		return -errno;
	for (size_t i = 0; i < n; i++)
		if (strncmp(lines[i], key, klen) || lines[i][klen] != ' ')
			fprintf(f, "%s\n", lines[i]);
	fprintf(f, "%s %" PRIu64 "\n", key, ns);
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

uint64_t cal_store_load(const char *key)
{
	static char lines[MAX_LINES][256];
	char path[PATH_MAX], machine[256];
	size_t n, klen = strlen(key);
	cal_store_path(path, sizeof(path));
	machine_line(machine, sizeof(machine));
	n = read_lines(path, machine, lines);
	for (size_t i = 1; i < n; i++)
		if (!strncmp(lines[i], key, klen) && lines[i][klen] == ' ')
			return strtoull(lines[i] + klen + 1, NULL, 10);
	return 0;
}
