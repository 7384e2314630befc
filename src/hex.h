/*
 * src/hex.h - bytes in lowercase hex (build-ids: in paths of debug files,
 * and in maps.build_id).
 */
#ifndef MTX_HEX_H
#define MTX_HEX_H

#include <stddef.h>
#include <stdint.h>

/* hex_bytes - @bytes (@size of them) in lowercase hex into @out, which
 * holds 2 * @size + 1 bytes. */
static inline void hex_bytes(const uint8_t *bytes, size_t size, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < size; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * size] = '\0';
}

#endif
