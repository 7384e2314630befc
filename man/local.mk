# man: the manual pages (mtx(1), one page per command, mtx-db(5)).
dist_man_MANS += man/mtx.1 man/mtx-collect.1 man/mtx-info.1 man/mtx-report.1 man/mtx-browse.1 man/mtx-probe-effect.1 man/mtx-diagnose.1 man/mtx-export.1 man/mtx-calibrate.1 man/mtx-ctl.1 man/mtx-db.5
