/*
 * src/ctl-client.h - the client side of mtx collect --control SOCK
 * (collector/control.h): one command a connection, one line of JSON back.
 * mtx ctl and the browser's live view (mtx browse --live) ask through it.
 */
#ifndef MTX_CTL_CLIENT_H
#define MTX_CTL_CLIENT_H

#include <stddef.h>

/* How long the collector may take to answer (a probe's definition and
 * calibration take tens of ms; its loop serves between drains). */
#define CTL_REPLY_MS 30000

/*
 * ctl_ask - send @command to the collector listening at @sock and wait up
 * to @wait_ms for its answer: *@reply, malloc'd, one JSON object without
 * its newline, {"ok": true or false, "text": ..., ...}. Returns 0, or
 * -errno with @err: nothing listens there, or it did not answer whole.
 */
int ctl_ask(const char *sock, const char *command, int wait_ms, char **reply, char **err);

/* ctl_reply_text - the value of the reply's JSON string field "text",
 * unescaped (as the collector escapes: \" \\ and \u00XX), into @out; the
 * reply itself when it has none. */
void ctl_reply_text(const char *reply, char *out, size_t size);

#endif
