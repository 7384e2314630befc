/*
 * src/frames.h - whose code a stack frame is: the program's own, or the
 * system's (a shared library of the system, a header of the system inlined
 * into the program, mtx's own library). Declared once here, for every place
 * that says where in the program something happened: the sync ops' call
 * sites, the switches' positions (src/derived/frames.c), and the profile's
 * folding of mtx's own frames (collector/profile.c).
 */
#ifndef MTX_FRAMES_H
#define MTX_FRAMES_H

#include <stdbool.h>

/* The name a profile gives the frames of libmtx-preload.so: this prefix
 * and the wrapper the program called ("[mtx] pthread_mutex_lock"). */
#define FRAME_MTX_PREFIX "[mtx] "

/* frame_is_mtx - whether @module (a path) is libmtx-preload.so: code that
 * runs in the program only because mtx traces it. */
bool frame_is_mtx(const char *module);

/*
 * frame_is_system - whether a frame of a function of @module, declared in
 * @file (DWARF; NULL without), is not the program's own code: @module is
 * unknown (NULL), a pseudo module ([vdso], [kernel]), mtx's, or a library
 * of the system (under /lib, /lib64, /usr/lib, /usr/lib64); or @file is a
 * header of the system (under /usr/include or the compiler's /usr/lib/gcc),
 * even when its code was inlined into, or instantiated in, the program
 * (std::mutex::lock, __gthread_mutex_lock, std::vector<T>::emplace_back).
 */
bool frame_is_system(const char *module, const char *file);

#endif
