/*
 * ui/view-live.c - mtx browse --live SOCK: a run while mtx collect
 * --control SOCK records it. Every second the view asks the collector for
 * its totals ("live", collector/live.h), adds the answer to the live
 * tables (ui/live-tables.h) and shows, over the window since the answer
 * before: the consultant's top-level hypotheses and where they are true
 * (with mtx collect --consultant, the collector's own search as it
 * stands), each thread's time in each state, and the busiest sync objects. When the
 * collector has gone (the run is over) the last figures stay.
 */
#include "config.h"
#include "src/clock.h"
#include "src/ctl-client.h"
#include "src/db.h"
#include "ui/live-tables.h"
#include "ui/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often the view asks, and how long it waits for the answer. */
#define LIVE_EVERY_NS 1000000000ull
#define LIVE_WAIT_MS 2000

struct live_view {
	const char *sock;
	uint64_t asked_ns;
	bool answered;   /* at least once */
	bool gone;       /* the collector no longer answers: the run is over */
	char text[256];  /* the last answer's summary, or why there is none */
};

/* Ask the collector for its totals and keep them: 0, or -errno with @err
 * (its error line) when it did not answer. */
static int ask(struct view *v, char **err)
{
	struct live_view *lv = v->priv;
	char *reply = NULL;
	int rc;
	lv->asked_ns = clock_now_ns();
	if ((rc = ctl_ask(lv->sock, "live", LIVE_WAIT_MS, &reply, err)))
		return rc;
	ctl_reply_text(reply, lv->text, sizeof(lv->text));
	rc = live_tables_add(v->b->db, reply, err);
	lv->answered |= rc == 0;
	free(reply);
	return rc;
}

static int live_load(struct view *v, char **err)
{
	const char *sections[] = { "live.search", "live.threads", "live.objects" };
	struct live_view *lv = v->priv;
	char *why = NULL;
	int rc;
	if (!lv->gone && (rc = ask(v, &why))) {
		if (!lv->answered) { /* nothing to show */
			*err = why;
			return rc;
		}
		/* nothing listens there any more: the run is over; else (a
		 * collector too busy to answer within LIVE_WAIT_MS) ask again */
		lv->gone = rc == -ENOENT || rc == -ECONNREFUSED;
		snprintf(lv->text, sizeof(lv->text), lv->gone ? "the collector has gone: the run is over (%s)"
							       : "no answer this time (%s); the figures are the last",
			 why ? why : strerror(-rc));
		free(why);
	}
	/* the collector's own search, when it runs one, in place of the
	 * view's outline of it */
	if (db_query_int(v->b->db, "SELECT EXISTS (SELECT 1 FROM live_search)", 0) > 0)
		sections[0] = "live.graph";
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if ((rc = view_load_query(v, sections[i], 1000, err)) < 0)
			return rc;
	return 0;
}

/* Draw, once a second asking anew and reloading where the user was. */
static void live_draw(struct view *v, int y, int height, int width)
{
	struct live_view *lv = v->priv;
	if (!lv->gone && clock_now_ns() - lv->asked_ns >= LIVE_EVERY_NS) {
		size_t sel = v->sel, top = v->top;
		view_reload(v);
		if (v->table.nr_rows) {
			v->sel = sel < v->table.nr_rows ? sel : v->table.nr_rows - 1;
			v->top = top <= v->sel ? top : v->sel;
		}
	}
	table_draw(&v->table, y, height, width, v->top, v->sel);
}

static void live_status(const struct view *v, char *buf, size_t size)
{
	const struct live_view *lv = v->priv;
	snprintf(buf, size, "%s%s", lv->text, lv->gone ? "" : " (each second)");
}

/* Asking every second: the browser draws it again without a key. */
static bool live_busy(const struct view *v)
{
	const struct live_view *lv = v->priv;
	return !lv->gone;
}

static void live_free(struct view *v)
{
	free(v->priv);
	v->priv = NULL;
}

static const struct view_ops live_view_ops = {
	.name = "live",
	.load = live_load,
	.draw = live_draw,
	.status = live_status,
	.busy = live_busy,
	.free = live_free,
};

struct view *live_view_new(struct browse *b)
{
	struct live_view *lv = calloc(1, sizeof(*lv));
	struct view *v = lv ? view_new(b, &live_view_ops, "live", NULL) : NULL;
	if (!v) {
		free(lv);
		return NULL;
	}
	lv->sock = b->live;
	v->priv = lv;
	v->table.sticky_header = false; /* three sections, each with its title */
	return v;
}
