/*
 * The library's internal helpers the extension uses, compiled here from
 * the same sources: libtracemux.a keeps only the TMX_API functions global
 * (its other symbols are made local), so the extension cannot link them.
 */
#include "common/buf.c"
#include "common/strdict.c"
