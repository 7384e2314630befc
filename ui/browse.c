/*
 * ui/browse.c - see browse.h.
 */
#include "config.h"
#include "ui/browse.h"
#include "ui/display.h"
#include "ui/views.h"
#include "src/clock.h"
#include "src/db.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

struct main_view {
	enum action action;
	struct view *(*open)(struct browse *b);
	const char *name;
};

/* The main views of a run.db (ui/main-views.h); each opens once and is kept. */
static const struct main_view run_views[] = {
#define X(e, name, key, help, open) { ACT_VIEW_##e, open, name },
	MAIN_VIEWS(X)
#undef X
};
#define NR_MAIN_VIEWS ((int)(sizeof(run_views) / sizeof(run_views[0])))

/* A run being recorded (--live) has one: no key switches to another. */
static const struct main_view live_views[] = { { (enum action)-1, live_view_new, "live" } };

struct browser {
	struct browse b;
	const struct main_view *main_views;
	int nr_main_views;
	FILE *timing; /* MTX_BROWSE_TIMING: one line per frame, for bench/ */
	struct view *main[NR_MAIN_VIEWS];
	int current; /* main view at the bottom of the stack */
	struct view *stack[MAX_DEPTH]; /* views opened above it */
	int depth;
	bool drawn_busy; /* the last frame showed a view still computing */
};

static struct view *top_view(struct browser *br)
{
	return br->depth ? br->stack[br->depth - 1] : br->main[br->current];
}

/* Load @v; on failure say why and free it. */
static struct view *load_view(struct browser *br, struct view *v)
{
	char *err = NULL;
	if (!v)
		return NULL;
	if (v->ops->load(v, &err)) {
		view_message(&br->b, "%s: %s", v->title, err ? err : "cannot be read");
		free(err);
		view_free(v);
		return NULL;
	}
	return v;
}

static void switch_main(struct browser *br, int index)
{
	if (!br->main[index]) {
		/* Opening one can take seconds (the probe-effect view simulates
		 * the whole run): say so on the status line meanwhile. */
		if (br->main[br->current]) {
			int rows, cols;
			char line[96];
			display_size(&rows, &cols);
			snprintf(line, sizeof(line), "opening %s...", br->main_views[index].name);
			display_text(rows - 1, 0, cols, STYLE_STATUS, true, line);
			display_refresh();
		}
		br->main[index] = load_view(br, br->main_views[index].open(&br->b));
		if (!br->main[index])
			return;
	}
	while (br->depth)
		view_free(br->stack[--br->depth]);
	br->current = index;
}

static void push_view(struct browser *br, struct view *v)
{
	v = load_view(br, v);
	if (!v)
		return;
	if (br->depth == MAX_DEPTH) {
		view_message(&br->b, "too many views open: go back first");
		view_free(v);
		return;
	}
	br->stack[br->depth++] = v;
}

/* Close the view on top, back to the one it was opened from. */
static void pop_view(struct browser *br)
{
	if (br->depth)
		view_free(br->stack[--br->depth]);
	else
		view_message(&br->b, "this is a main view: q quits");
}

/* The breadcrumb: main view > opened views, cut from the left to fit. */
static void draw_title(struct browser *br, int width)
{
	char line[1024];
	size_t used = (size_t)snprintf(line, sizeof(line), "mtx browse %s: %s", br->b.path, br->main[br->current]->title);
	for (int i = 0; i < br->depth && used < sizeof(line); i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used, " > %s", br->stack[i]->title);
	/* Too long: its end, where you are, after an ellipsis. */
	const char *shown = line;
	char cut[1024 + 8];
	if ((int)strlen(line) > width) {
		shown = line + strlen(line) - (size_t)(width > 1 ? width - 1 : 0);
		while ((*shown & 0xc0) == 0x80) /* not inside a UTF-8 character */
			shown++;
		snprintf(cut, sizeof(cut), "%s%s", display_glyph_text(GLYPH_ELLIPSIS), shown);
		shown = cut;
	}
	display_text(0, 0, width, STYLE_TITLE, true, shown);
}

static void draw_status(struct browser *br, int y, int width)
{
	char left[512], line[1024];
	const char *right = br->depth ? "? help  q back" : "? help  q quit";
	view_status(top_view(br), left, sizeof(left));
	if (br->b.message)
		snprintf(line, sizeof(line), "%s", br->b.message);
	else
		snprintf(line, sizeof(line), "%s", left);
	int pad = width - (int)strlen(line) - (int)strlen(right);
	char full[2048];
	snprintf(full, sizeof(full), "%s%*s%s", line, pad > 1 ? pad : 1, "", right);
	display_text(y, 0, width, br->b.message ? STYLE_ERROR : STYLE_STATUS, true, full);
}

/* Rows at most for an incomplete run's line (the rest is cut). */
#define INCOMPLETE_ROWS 2

/* An incomplete run's line, what it lacks, under the title on every frame:
 * broken at blanks onto INCOMPLETE_ROWS rows at most when the screen is too
 * narrow, the rest cut. Returns the rows it took. */
static int draw_incomplete(struct browser *br, int y, int width)
{
	const char *text = br->b.incomplete;
	char row[1024];
	int rows = 0;
	while (text && *text && rows < INCOMPLETE_ROWS) {
		int cut = (int)strlen(text), most = width < (int)sizeof(row) - 1 ? width : (int)sizeof(row) - 1;
		if (cut > most) {
			for (cut = most; cut > 0 && text[cut] != ' '; cut--)
				;
			if (!cut)
				cut = most;
		}
		snprintf(row, sizeof(row), "%.*s", cut, text);
		display_text(y + rows++, 0, width, STYLE_ERROR, true, row);
		for (text += cut; *text == ' '; text++)
			;
	}
	return rows;
}

/* A screen too small for the views: the minimum, whole on one line (the
 * longest of these that fits). */
static void draw_too_small(int rows, int cols)
{
	char forms[4][96];
	int i = 0;
	snprintf(forms[0], sizeof(forms[0]), "mtx browse needs at least %dx%d; this terminal is %dx%d (q quits)",
		 DISPLAY_MIN_COLS, DISPLAY_MIN_ROWS, cols, rows);
	snprintf(forms[1], sizeof(forms[1]), "needs at least %dx%d, is %dx%d", DISPLAY_MIN_COLS, DISPLAY_MIN_ROWS,
		 cols, rows);
	snprintf(forms[2], sizeof(forms[2]), "needs %dx%d", DISPLAY_MIN_COLS, DISPLAY_MIN_ROWS);
	snprintf(forms[3], sizeof(forms[3]), "%dx%d", DISPLAY_MIN_COLS, DISPLAY_MIN_ROWS);
	while (i < 3 && (int)strlen(forms[i]) > cols)
		i++;
	display_text(0, 0, cols, STYLE_ERROR, false, forms[i]);
}

static bool view_busy(const struct view *v)
{
	return v->ops->busy && v->ops->busy(v);
}

static void draw_frame(struct browser *br)
{
	int rows, cols;
	display_size(&rows, &cols);
	display_clear();
	if (rows < DISPLAY_MIN_ROWS || cols < DISPLAY_MIN_COLS) {
		draw_too_small(rows, cols);
		display_refresh();
		return;
	}
	draw_title(br, cols);
	int top = 1 + draw_incomplete(br, 1, cols);
	br->drawn_busy = view_busy(top_view(br));
	view_draw(top_view(br), top, rows - 1 - top, cols);
	draw_status(br, rows - 1, cols);
	display_refresh();
}

static bool screen_too_small(void)
{
	int rows, cols;
	display_size(&rows, &cols);
	return rows < DISPLAY_MIN_ROWS || cols < DISPLAY_MIN_COLS;
}

/* The action name of @key, for the timing log. */
static const char *action_name(int key)
{
	int nr;
	enum action a = action_for_key(key);
	const struct action_info *t = action_table(&nr);
	for (int i = 0; i < nr; i++)
		if (t[i].action == a)
			return t[i].name;
	return key == KEY_RESIZE ? "resize" : "none";
}

/* One key: returns false to quit. */
static bool handle_key(struct browser *br, int key)
{
	enum action a = action_for_key(key);
	struct view *v = top_view(br);
	enum reaction r = REACT_UNHANDLED;

	if (key == KEY_RESIZE || a == ACT_REDRAW)
		return true;
	free(br->b.message);
	br->b.message = NULL;
	/* As in tig and less: q closes what was opened on top (help, a
	 * drill-down) and quits only from a main view; Q always quits. */
	if (a == ACT_QUIT_ALL || (a == ACT_QUIT && !br->depth))
		return false;
	if (a == ACT_QUIT || (a == ACT_BACK && screen_too_small())) {
		pop_view(br);
		return true;
	}
	if (screen_too_small())
		return true;
	if (v->ops->act)
		r = v->ops->act(v, a);
	if (r == REACT_UNHANDLED)
		r = view_handle(v, a);
	if (r == REACT_PUSH) {
		push_view(br, v->pushed);
		v->pushed = NULL;
		return true;
	}
	if (r != REACT_UNHANDLED)
		return true;
	for (int i = 0; i < br->nr_main_views; i++)
		if (br->main_views[i].action == a) {
			switch_main(br, i);
			return true;
		}
	switch (a) {
	case ACT_BACK:
		pop_view(br);
		break;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW:
		switch_main(br, (br->current + (a == ACT_NEXT_VIEW ? 1 : br->nr_main_views - 1)) % br->nr_main_views);
		break;
	case ACT_HELP:
		push_view(br, help_view_new(&br->b));
		break;
	case ACT_NONE:
		break;
	default:
		view_message(&br->b, "not in this view (? lists the keys)");
	}
	return true;
}

/* The loop, from the first main view: 0, or -1 with @err when the
 * terminal cannot be used or the first view cannot be read. */
static int run_browser(struct browser *br, sqlite3 *db, uint64_t start_ns, const char **err)
{
	const char *timing = getenv("MTX_BROWSE_TIMING");
	if (display_init(err))
		return -1;
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL); /* as for each key below */
	switch_main(br, 0);
	if (!br->main[0]) { /* the first view must open; say why it did not */
		static char why[512];
		display_end();
		snprintf(why, sizeof(why), "%s", br->b.message ? br->b.message : "the first view cannot be read");
		*err = why;
		free(br->b.message);
		free(br->b.incomplete);
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		return -1;
	}
	if (timing && *timing)
		br->timing = fopen(timing, "a");
	draw_frame(br);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (br->timing)
		fprintf(br->timing, "start %.3f\n", (double)(clock_now_ns() - start_ns) / 1e6), fflush(br->timing);
	for (;;) {
		/* a view computing: show how far it is, and what it found once done */
		int key = view_busy(top_view(br)) ? display_key_within(100) : br->drawn_busy ? ERR : display_key();
		if (key == ERR) {
			sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
			draw_frame(br);
			sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
			continue;
		}
		/* One read transaction for a key and its frame: without it SQLite
		 * takes and drops its file lock and checks the file's header
		 * around every statement (a timeline frame runs thousands). */
		sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		bool more = handle_key(br, key);
		if (more)
			draw_frame(br);
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		if (!more)
			break;
		/* From the last key read (a prompt's Enter, for search, filter, jump). */
		if (br->timing)
			fprintf(br->timing, "key %s %.3f\n", action_name(key),
				(double)(clock_now_ns() - display_last_input_ns()) / 1e6),
				fflush(br->timing);
	}
	display_end();
	if (br->timing)
		fclose(br->timing);
	while (br->depth)
		view_free(br->stack[--br->depth]);
	for (int i = 0; i < br->nr_main_views; i++)
		view_free(br->main[i]);
	free(br->b.message);
	free(br->b.incomplete);
	return 0;
}

int browse_run(sqlite3 *db, const char *path, const struct run_state *rs, uint64_t start_ns, const char **err)
{
	/* an incomplete run's line, else a summarized run's note, under the title */
	char *line = run_state_line(rs);
	struct browser br = { .b = { .db = db, .path = path, .file = path, .missing = rs->missing,
				     .incomplete = line ? line : run_state_detail_note(db, rs) },
			      .main_views = run_views, .nr_main_views = NR_MAIN_VIEWS };
	const char *slash = strrchr(path, '/');
	br.b.path = slash ? slash + 1 : path;
	br.b.origin_ns = db_run_start_ns(db);
	br.b.end_ns = db_run_end_ns(db);
	if (br.b.end_ns <= br.b.origin_ns)
		br.b.end_ns = br.b.origin_ns + 1;

	/* Room for the pages one timeline frame reads (the states, ops and
	 * syscalls of all lanes within the window, ~1500 pages on a 10 M-event
	 * run at 2 ms a column): SQLite's default 2 MB made lanes evict each
	 * other's pages. Bounded, whatever the size of the file. */
	sqlite3_exec(db, "PRAGMA cache_size = -16384", NULL, NULL, NULL);
	return run_browser(&br, db, start_ns, err);
}

int browse_live(sqlite3 *db, const char *sock, uint64_t start_ns, const char **err)
{
	struct browser br = { .b = { .db = db, .path = sock, .file = sock, .live = sock },
			      .main_views = live_views, .nr_main_views = 1 };
	return run_browser(&br, db, start_ns, err);
}

void browse_print_keys(void)
{
	int nr;
	const struct action_info *a = action_table(&nr);
	for (int i = 0; i < nr; i++)
		printf("%-20s %-14s %-10s %s\n", a[i].key_names, a[i].name, a[i].where, a[i].help);
}
