/* tests/unit/symlib.h - see symlib.c. */
#ifndef MTX_TEST_SYMLIB_H
#define MTX_TEST_SYMLIB_H

unsigned long symlib_exported(unsigned long x);
void *symlib_hidden_address(void);

#endif
