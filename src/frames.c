/*
 * src/frames.c - see frames.h.
 */
#include "config.h"
#include "src/frames.h"

#include <string.h>

static bool under(const char *path, const char *dir)
{
	return strncmp(path, dir, strlen(dir)) == 0;
}

bool frame_is_mtx(const char *module)
{
	const char *slash = module ? strrchr(module, '/') : NULL;
	return slash && strcmp(slash + 1, "libmtx-preload.so") == 0;
}

bool frame_is_system(const char *module, const char *file)
{
	static const char *const libraries[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };
	static const char *const headers[] = { "/usr/include/", "/usr/lib/gcc/" };

	if (!module || module[0] == '[' || frame_is_mtx(module))
		return true;
	for (size_t i = 0; i < sizeof(libraries) / sizeof(libraries[0]); i++)
		if (under(module, libraries[i]))
			return true;
	for (size_t i = 0; file && i < sizeof(headers) / sizeof(headers[0]); i++)
		if (under(file, headers[i]))
			return true;
	return false;
}
