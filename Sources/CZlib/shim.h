#ifndef SMARTSTACK_CZLIB_SHIM_H
#define SMARTSTACK_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit2 is a macro; Swift needs a function.
static inline int smartstack_inflate_init2(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
/// deflateInit2 likewise (gzip output: windowBits 15 + 16).
static inline int smartstack_deflate_init2(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
