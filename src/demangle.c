/*
 * src/demangle.c - see demangle.h.
 *
 * The demangler is the C++ runtime's own, __cxa_demangle of libstdc++
 * (the one the C++ program being traced uses). mtx is C and does not link
 * the C++ runtime: it is loaded on the first mangled name, so runs of C
 * programs never load it.
 */
#include "config.h"
#include "src/demangle.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn load_demangler(void)
{
	static int tried;
	static cxa_demangle_fn fn;
	void *lib, *sym;

	if (tried)
		return fn;
	tried = 1;
	lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	sym = lib ? dlsym(lib, "__cxa_demangle") : NULL;
	/* ISO C has no cast from object to function pointer: copy the bits. */
	if (sym)
		*(void **)&fn = sym;
	return fn;
}

char *demangle(const char *name)
{
	cxa_demangle_fn fn;
	char *out;
	int status = -1;

	/* Itanium C++ ABI names, the only ones gcc and clang produce here. */
	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	fn = load_demangler();
	if (!fn)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
