/*
 * collector/perf.c - see perf.h.
 *
 * Kernel facts relied on: tracefs is not mounted on a fresh Debian 12 machine
 * (we mount it); tracepoint payload layouts are read from their format files
 * rather than assumed; with sample_id_all the sample_id fields trail every
 * non-sample record in the same order as in a sample, IDENTIFIER last.
 */
#include "config.h"
#include "collector/perf.h"
#include "src/error.h"
#include "src/small-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define DEBUGFS_TRACING "/sys/kernel/debug/tracing"

static const char *tracefs_root = TRACEFS;

static int dir_has_events(const char *root)
{
	char path[256];
	struct stat sb;
	snprintf(path, sizeof(path), "%s/events/sched", root);
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int tracefs_ensure(char **err)
{
	if (dir_has_events(TRACEFS)) {
		tracefs_root = TRACEFS;
		return 0;
	}
	if (dir_has_events(DEBUGFS_TRACING)) {
		tracefs_root = DEBUGFS_TRACING;
		return 0;
	}
	if (access(TRACEFS "/events", F_OK) < 0 && errno == EACCES) {
		error_set(err, "no permission to read tracefs (" TRACEFS "): run mtx as root, or give "
				"this user access to tracefs and set 'sysctl kernel.perf_event_paranoid=-1'");
		return -EACCES;
	}
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL) == 0 && dir_has_events(TRACEFS)) {
		tracefs_root = TRACEFS;
		return 0;
	}
	{
		int e = errno ? errno : ENOENT;
		error_set(err, "tracefs is not mounted and mounting it failed (%s): run "
				"'mount -t tracefs nodev " TRACEFS "' as root, or run mtx as root",
				strerror(e));
		return -e;
	}
}

const char *tracefs_dir(void)
{
	return tracefs_root;
}

long tracepoint_id(const char *system, const char *event)
{
	char path[512], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_root, system, event);
	n = small_file_read(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENODATA ? -EIO : n;
	return strtol(buf, NULL, 10);
}

int tracepoint_field(const char *system, const char *event, const char *name, int *offset, int *size)
{
	char path[512], line[512], needle[128];
	FILE *f;
	int found = -ENOENT;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs_root, system, event);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* Lines look like: "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;"
	 * and arrays like "field:char prev_comm[16];". */
	while (fgets(line, sizeof(line), f)) {
		char *field = strstr(line, "field:");
		char *semi, *p, *o, *s;
		if (!field)
			continue;
		semi = strchr(field, ';');
		if (!semi)
			continue;
		*semi = 0;
		p = strrchr(field, ' ');
		if (!p)
			continue;
		p++;
		snprintf(needle, sizeof(needle), "%s", p);
		needle[strcspn(needle, "[")] = 0;
		if (strcmp(needle, name) != 0)
			continue;
		o = strstr(semi + 1, "offset:");
		s = strstr(semi + 1, "size:");
		if (!o || !s)
			continue;
		*offset = atoi(o + 7);
		*size = atoi(s + 5);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

void perf_attr_init(struct perf_event_attr *attr, uint32_t type, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->sample_type = MTX_SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC; /* the preload library stamps the same clock */
	/* read(2) of the event then says how many of its records the ring
	 * had no room for: the PERF_RECORD_LOST that would say it is written
	 * only when a later record fits, which never happens to a ring still
	 * full when its events are disabled. */
	attr->read_format = PERF_FORMAT_LOST;
}

/* Set once a kernel older than 6.0 refused PERF_FORMAT_LOST. */
static int lost_unreadable;

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	long fd;
	if (lost_unreadable)
		attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && (attr->read_format & PERF_FORMAT_LOST)) {
		lost_unreadable = 1;
		return perf_open(attr, pid, cpu, group_fd);
	}
	return fd < 0 ? -errno : (int)fd;
}

int perf_read_lost(int fd, uint64_t *lost)
{
	uint64_t v[2]; /* the count, then PERF_FORMAT_LOST's */
	if (lost_unreadable)
		return -EOPNOTSUPP;
	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return -EIO;
	*lost = v[1];
	return 0;
}

const char *perf_open_error(int e)
{
	switch (-e) {
	case EACCES:
	case EPERM:
		return "no permission to use perf_event_open: run as root, or grant CAP_PERFMON "
		       "(and CAP_SYS_ADMIN for tracepoints) or set 'sysctl kernel.perf_event_paranoid=-1'";
	case ENOENT:
	case ENODEV:
		return "the kernel lacks a needed perf event (is it built with CONFIG_PERF_EVENTS and "
		       "CONFIG_FTRACE?)";
	case EMFILE:
		return "too many open files for the perf events: raise 'ulimit -n'";
	case ENOMEM:
		return "not enough locked memory for the perf buffers: raise "
		       "'sysctl kernel.perf_event_mlock_kb' or use a smaller --buffer-size";
	case ENOSYS:
		return "this kernel has no perf_event_open";
	default:
		return strerror(-e);
	}
}

int perf_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (int)n : 1;
}

int perf_sample_parse(const struct perf_event_header *hdr, uint64_t extra, struct perf_sample *out)
{
	const uint8_t *p = (const uint8_t *)(hdr + 1);
	const uint8_t *end = (const uint8_t *)hdr + hdr->size;
	uint64_t v;

	memset(out, 0, sizeof(*out));
	if (hdr->type != PERF_RECORD_SAMPLE) {
		/* sample_id trailer: {pid,tid} time {cpu,res} identifier = 32 bytes. */
		if (end - p < 32)
			return -EINVAL;
		p = end - 32;
		memcpy(&out->pid, p, 4);
		memcpy(&out->tid, p + 4, 4);
		memcpy(&out->time, p + 8, 8);
		memcpy(&out->cpu, p + 16, 4);
		memcpy(&out->id, p + 24, 8);
		return 0;
	}
	/* Sample layout for our sample_type: identifier, {pid,tid}, time,
	 * {cpu,res}, then {u64 nr, ips[nr]} when PERF_SAMPLE_CALLCHAIN, then
	 * {u32 size, data} when PERF_SAMPLE_RAW (the kernel's field order). */
	if (end - p < 32)
		return -EINVAL;
	memcpy(&out->id, p, 8);
	memcpy(&out->pid, p + 8, 4);
	memcpy(&out->tid, p + 12, 4);
	memcpy(&out->time, p + 16, 8);
	memcpy(&v, p + 24, 8);
	out->cpu = (uint32_t)v;
	out->kernel_mode = (hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	p += 32;
	if (extra & PERF_SAMPLE_CALLCHAIN) {
		if (end - p < 8)
			return -EINVAL;
		memcpy(&v, p, 8);
		p += 8;
		if ((uint64_t)(end - p) / 8 < v)
			return -EINVAL;
		out->callchain = p;
		out->nr_callchain = v;
		p += v * 8;
	}
	if (extra & PERF_SAMPLE_RAW) {
		uint32_t size;
		if (end - p < 4)
			return -EINVAL;
		memcpy(&size, p, 4);
		p += 4;
		if ((size_t)(end - p) < size)
			return -EINVAL;
		out->raw = p;
		out->raw_size = size;
		p += size;
	}
	/* {u64 abi; u64 regs[weight(mask)]}, the regs only when abi is not
	 * PERF_SAMPLE_REGS_ABI_NONE (a kernel thread). */
	if (extra & PERF_SAMPLE_REGS_USER) {
		if (end - p < 8)
			return -EINVAL;
		memcpy(&v, p, 8);
		p += 8;
		if (v != PERF_SAMPLE_REGS_ABI_NONE) {
			if (end - p < 8 * MTX_NR_REGS_USER)
				return -EINVAL;
			out->regs_user = p;
			p += 8 * MTX_NR_REGS_USER;
		}
	}
	/* {u64 size; char data[size]; u64 dyn_size}: dyn_size (only there
	 * when size is not 0) says how much of data the kernel could copy. */
	if (extra & PERF_SAMPLE_STACK_USER) {
		uint64_t dyn_size;
		if (end - p < 8)
			return -EINVAL;
		memcpy(&v, p, 8);
		p += 8;
		if (v) {
			if ((uint64_t)(end - p) < v || (uint64_t)(end - p) - v < 8)
				return -EINVAL;
			memcpy(&dyn_size, p + v, 8);
			out->stack_user = p;
			out->stack_user_size = dyn_size < v ? dyn_size : v;
			p += v + 8;
		}
	}
	return 0;
}

uint64_t *perf_user_chain(const struct perf_sample *sample, uint32_t *nr)
{
	uint64_t *pcs;
	*nr = 0;
	if (!sample->nr_callchain)
		return NULL;
	pcs = malloc(sample->nr_callchain * sizeof(*pcs));
	if (!pcs)
		return NULL;
	for (uint64_t i = 0; i < sample->nr_callchain; i++) {
		uint64_t pc;
		memcpy(&pc, sample->callchain + 8 * i, 8);
		if (pc >= (uint64_t)PERF_CONTEXT_MAX || pc == 0)
			continue;
		pcs[(*nr)++] = pc;
	}
	if (!*nr) {
		free(pcs);
		return NULL;
	}
	return pcs;
}
