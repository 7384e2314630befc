# src/cmd/: the mtx program, its entry point and one file per subcommand:
# the only code that sees both the collector and the browser.
bin_PROGRAMS += mtx
mtx_SOURCES = \
	src/cmd/mtx.c src/cmd/cmd.h \
	src/cmd/suggest.c \
	src/cmd/cmd-collect.c \
	src/cmd/cmd-info.c \
	src/cmd/cmd-report.c src/cmd/report-metric.c src/cmd/report-compare.c src/cmd/report-phases.c \
	src/cmd/cmd-browse.c \
	src/cmd/cmd-probe-effect.c \
	src/cmd/cmd-diagnose.c \
	src/cmd/cmd-export.c src/cmd/export.h src/cmd/export-perfetto.c \
	src/cmd/cmd-calibrate.c \
	src/cmd/cmd-ctl.c \
	src/cmd/probe-views.c src/cmd/probe-views.h
mtx_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(PCRE2_CFLAGS)
mtx_LDADD = libmtxui.a $(MTX_LIBS) $(NCURSES_LIBS)

# bash completion, installed under the command's name as bash-completion
# looks it up (the file's own name says what it is).
bashcompletiondir = $(datadir)/bash-completion/completions
EXTRA_DIST += src/cmd/mtx.bash src/cmd/perfetto-trace.proto
install-data-local:
	$(MKDIR_P) $(DESTDIR)$(bashcompletiondir)
	$(INSTALL_DATA) $(srcdir)/src/cmd/mtx.bash $(DESTDIR)$(bashcompletiondir)/mtx
uninstall-local:
	rm -f $(DESTDIR)$(bashcompletiondir)/mtx
