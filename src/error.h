/*
 * src/error.h - the one-line error message a function hands its caller.
 *
 * Functions that can fail take `char **err`: NULL (the caller wants no
 * message) or the address of a message pointer that is NULL or holds an
 * earlier message (malloc'd; the caller frees it). The message is the whole
 * line the user sees after "mtx: ", without a newline.
 */
#ifndef MTX_ERROR_H
#define MTX_ERROR_H

#include <stdarg.h>

/*
 * error_set - replace *@err with the formatted message (nothing when @err
 * is NULL). The old message is freed after formatting, so it may be one of
 * the arguments: error_set(err, "%s: %s", path, *err) wraps it. When memory
 * runs out *@err becomes NULL, which callers show as the errno's text.
 */
void error_set(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void error_vset(char **err, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
