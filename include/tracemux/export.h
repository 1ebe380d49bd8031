/*
 * tracemux — what the shared library exports.
 *
 * libtracemux is built with -fvisibility=hidden: only declarations marked
 * TMX_API (the public API, in these headers) are visible to programs that
 * link the shared library; everything else stays internal, so it can
 * change without breaking them.
 */
#ifndef TRACEMUX_EXPORT_H
#define TRACEMUX_EXPORT_H

#if defined(__GNUC__) && __GNUC__ >= 4
#define TMX_API __attribute__((visibility("default")))
#else
#define TMX_API
#endif

#endif /* TRACEMUX_EXPORT_H */
