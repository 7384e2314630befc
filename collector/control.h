/*
 * collector/control.h - the socket of mtx collect --control SOCK: a Unix
 * stream socket that takes one command per connection, a line, and
 * answers it with one line (mtx ctl, src/cmd/cmd-ctl.c, is its client).
 * The loop polls control_fd and calls control_serve when it is readable.
 */
#ifndef MTX_COLLECTOR_CONTROL_H
#define MTX_COLLECTOR_CONTROL_H

#include <stdio.h>

struct mtx_control;

/* control_open - listen on @path; a file there is replaced only if no
 * collector answers on it. Returns 0, or -errno with @err. */
int control_open(struct mtx_control **out, const char *path, char **err);

int control_fd(const struct mtx_control *c);

/* A command's handler: write the reply line for @line to @reply. */
typedef void (*control_handler)(void *ctx, const char *line, FILE *reply);

/* control_serve - take the client waiting, read its line (at most 100 ms
 * of waiting for it), answer it with @fn and hang up. */
void control_serve(struct mtx_control *c, control_handler fn, void *ctx);

/* control_close - stop listening and remove the socket file. NULL: none. */
void control_close(struct mtx_control *c);

#endif
