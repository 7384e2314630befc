/*
 * src/demangle.h - C++ symbol names as people read them ("work::step(int)"
 * for "_ZN4work4stepEi"), the way perf and uftrace show them.
 */
#ifndef MTX_DEMANGLE_H
#define MTX_DEMANGLE_H

/*
 * demangle - the readable form of the mangled C++ name @name (malloc'd,
 * caller frees), or NULL when @name is not a mangled C++ name (C names),
 * cannot be demangled, or no demangler is installed.
 */
char *demangle(const char *name);

#endif
