# ui/: mtx browse, the ncurses explorer. Only mtx links it (through
# src/cmd/cmd-browse.c); it reads run.db through src/ and never sees collector/.
noinst_LIBRARIES += libmtxui.a
libmtxui_a_SOURCES = \
	ui/display.c ui/display.h \
	ui/actions.c ui/actions.h ui/main-views.h \
	ui/table.c ui/table.h \
	ui/view.c ui/view.h ui/views.h \
	ui/browse.c ui/browse.h \
	ui/view-report.c \
	ui/view-paged.c \
	ui/view-waits.c \
	ui/view-live.c ui/live-tables.c ui/live-tables.h \
	ui/time-axis.c ui/time-axis.h \
	ui/view-timeline.c \
	ui/view-calls.c \
	ui/view-probe-effect.c \
	ui/view-diagnose.c \
	ui/view-phases.c \
	ui/view-help.c
libmtxui_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(PCRE2_CFLAGS) $(NCURSES_CFLAGS)
