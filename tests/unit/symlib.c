/*
 * tests/unit/symlib.c - a shared library for tests/unit/test-symbols.c: one
 * exported function, and one static function only a full symbol table
 * names (a stripped copy keeps just the dynamic symbols).
 */
#include "tests/unit/symlib.h"

__attribute__((noinline)) static unsigned long symlib_hidden(unsigned long x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

unsigned long symlib_exported(unsigned long x)
{
	return symlib_hidden(x) + 7;
}

void *symlib_hidden_address(void)
{
	return (void *)symlib_hidden;
}
