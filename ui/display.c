/*
 * ui/display.c - see display.h.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ui/display.h"
#include "src/clock.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool active, utf8, colours;
static attr_t style_attrs[NR_STYLES];
static uint64_t last_input_ns; /* when the last key was read */

/* UTF-8 and ASCII forms of each glyph, in enum display_glyph order. */
static const char *const glyphs_utf8[NR_GLYPHS] = { "█", "▒", "─", "~", "·", "_", "█", "─", "│", "…", "▲", "▼" };
static const char *const glyphs_ascii[NR_GLYPHS] = { "#", "+", "=", "~", ".", "_", "#", "-", "|", "<", "^", "v" };

void display_end(void)
{
	if (!active)
		return;
	active = false;
	endwin();
}

/* A fatal signal: give the terminal back, then die of the same signal. */
static void on_fatal_signal(int sig)
{
	display_end();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void setup_styles(void)
{
	static const struct { short fg, bg; attr_t extra; } pairs[NR_STYLES] = {
		[STYLE_NORMAL] = { -1, -1, 0 },
		[STYLE_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
		[STYLE_HEADER] = { COLOR_YELLOW, -1, A_BOLD },
		[STYLE_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0 },
		[STYLE_STATUS] = { COLOR_WHITE, COLOR_BLUE, 0 },
		[STYLE_ERROR] = { COLOR_WHITE, COLOR_RED, A_BOLD },
		[STYLE_MARK] = { COLOR_MAGENTA, -1, A_BOLD },
		[STYLE_RUNNING] = { COLOR_GREEN, -1, 0 },
		[STYLE_RUNNABLE] = { COLOR_YELLOW, -1, 0 },
		[STYLE_SYNC] = { COLOR_RED, -1, A_BOLD },
		[STYLE_IO] = { COLOR_BLUE, -1, A_BOLD },
		[STYLE_SLEEP] = { COLOR_CYAN, -1, 0 },
		[STYLE_BLOCKED] = { COLOR_MAGENTA, -1, 0 },
		[STYLE_CURSOR] = { COLOR_WHITE, -1, A_BOLD },
	};
	/* Monochrome: reverse video for what must stand out, nothing else. */
	for (int s = 0; s < NR_STYLES; s++)
		style_attrs[s] = A_NORMAL;
	style_attrs[STYLE_TITLE] = style_attrs[STYLE_SELECTED] = style_attrs[STYLE_STATUS] = A_REVERSE;
	style_attrs[STYLE_ERROR] = A_REVERSE | A_BOLD;
	style_attrs[STYLE_HEADER] = style_attrs[STYLE_MARK] = style_attrs[STYLE_CURSOR] = A_BOLD;
	if (!colours)
		return;
	start_color();
	use_default_colors();
	for (int s = 1; s < NR_STYLES && s < COLOR_PAIRS; s++) {
		init_pair((short)s, pairs[s].fg, pairs[s].bg);
		style_attrs[s] = COLOR_PAIR(s) | pairs[s].extra;
	}
}

int display_usable(const char **err)
{
	const char *term = getenv("TERM");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		*err = "standard input and output must be a terminal (use 'mtx report' for text)";
		return -1;
	}
	if (!term || !*term || !strcmp(term, "dumb")) {
		*err = "TERM is unset or 'dumb': the browser needs a terminal that can move the cursor "
		       "(e.g. TERM=xterm-256color), or use 'mtx report'";
		return -1;
	}
	return 0;
}


/*
 * Home and End as terminals send them, whatever their terminfo entry says
 * (tmux and screen send ESC [ 1 ~ and ESC [ 4 ~ under TERM=xterm-256color,
 * xterm ESC [ H and ESC O H): without these, such a key was read as Escape
 * (back) and three more keys.
 */
static void define_home_end(void)
{
	static const struct {
		const char *seq;
		int key;
	} keys[] = {
		{ "\033[1~", KEY_HOME }, { "\033[7~", KEY_HOME }, { "\033[H", KEY_HOME }, { "\033OH", KEY_HOME },
		{ "\033[4~", KEY_END },  { "\033[8~", KEY_END },  { "\033[F", KEY_END },  { "\033OF", KEY_END },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		define_key(keys[i].seq, keys[i].key);
}

int display_init(const char **err)
{
	static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL };

	if (display_usable(err))
		return -1;
	setlocale(LC_ALL, "");
	utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!newterm(NULL, stdout, stdin)) {
		*err = "this terminal (TERM) is not known to ncurses";
		return -1;
	}
	active = true;
	atexit(display_end);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], on_fatal_signal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	define_home_end();
	curs_set(0);
	set_escdelay(25);
	const char *no_colour = getenv("NO_COLOR");
	colours = has_colors() && !(no_colour && *no_colour);
	setup_styles();
	return 0;
}

void display_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
}

void display_clear(void)
{
	erase();
}

void display_text(int y, int x, int width, enum display_style style, bool fill, const char *text)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	if (y < 0 || y >= rows || x >= cols || width <= 0)
		return;
	if (x + width > cols)
		width = cols - x;
	attrset(style_attrs[style]);
	/* ncursesw counts columns for UTF-8 text; mvaddnstr's limit is bytes,
	 * so cut by columns here (mtx's own text is ASCII but names may not be). */
	int used = 0;
	move(y, x);
	for (const char *p = text; *p && used < width; used++) {
		unsigned char c = (unsigned char)*p;
		size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		len = strnlen(p, len);
		addnstr(p, (int)len);
		p += len;
	}
	if (fill)
		for (; used < width; used++)
			addch(' ');
	attrset(A_NORMAL);
}

const char *display_glyph_text(enum display_glyph glyph)
{
	return (utf8 ? glyphs_utf8 : glyphs_ascii)[glyph];
}

void display_glyph(int y, int x, int n, enum display_glyph glyph, enum display_style style)
{
	const char *g = display_glyph_text(glyph);
	attrset(style_attrs[style]);
	for (int i = 0; i < n; i++)
		mvaddstr(y, x + i, g);
	attrset(A_NORMAL);
}

void display_refresh(void)
{
	refresh();
}

int display_key(void)
{
	int key = getch();
	last_input_ns = clock_now_ns();
	return key;
}

int display_key_within(int ms)
{
	timeout(ms);
	int key = getch();
	timeout(-1);
	if (key != ERR)
		last_input_ns = clock_now_ns();
	return key;
}

uint64_t display_last_input_ns(void)
{
	return last_input_ns;
}

char *display_prompt(const char *label)
{
	int rows, cols;
	size_t len = 0, cap = 64;
	char *line = malloc(cap);
	if (!line)
		return NULL;
	line[0] = 0;
	getmaxyx(stdscr, rows, cols);
	curs_set(1);
	/* On a narrow screen the label is cut, to leave half the line to
	 * what is typed, whose end is shown. */
	int label_cols = (int)strlen(label) < cols / 2 ? (int)strlen(label) : cols / 2;
	for (;;) {
		int room = cols - label_cols - 1;
		move(rows - 1, 0);
		clrtoeol();
		attrset(A_BOLD);
		mvaddnstr(rows - 1, 0, label, label_cols);
		attrset(A_NORMAL);
		addstr(line + ((int)len > room && room > 0 ? len - (size_t)room : 0));
		refresh();
		int key = display_key();
		if (key == 27) { /* Esc */
			free(line);
			line = NULL;
			break;
		}
		if (key == '\n' || key == '\r' || key == KEY_ENTER)
			break;
		if ((key == KEY_BACKSPACE || key == 127 || key == 8) && len > 0)
			line[--len] = 0;
		else if (key >= 32 && key < 256 && key != 127) {
			if (len + 2 > cap) {
				char *more = realloc(line, cap *= 2);
				if (!more)
					break;
				line = more;
			}
			line[len++] = (char)key;
			line[len] = 0;
		}
	}
	curs_set(0);
	return line;
}
