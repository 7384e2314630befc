/*
 * src/timefmt.h - human-readable durations for reports and the browser:
 * "812 ns", "3.40 us", "12.5 ms", "1.234 s", "2m03s".
 */
#ifndef MTX_TIMEFMT_H
#define MTX_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* timefmt_duration - format @ns into @buf (at least 16 bytes); returns @buf. */
char *timefmt_duration(uint64_t ns, char *buf, size_t size);

/* timefmt_parse_offset - a time such as "1.5s", "200ms", "30us", "10ns"
 * or "2" (seconds) into @ns. Returns 0, or -EINVAL if it is not one. */
int timefmt_parse_offset(const char *text, int64_t *ns);

/* timefmt_parse_range - "T1-T2", two such times (0.020s-0.035s, 20ms-35ms),
 * into @from_ns and @to_ns. Returns 0, -EINVAL if it is not two times, or
 * -ERANGE if the second is not after the first. */
int timefmt_parse_range(const char *text, int64_t *from_ns, int64_t *to_ns);

#endif
