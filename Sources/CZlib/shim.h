#ifndef SMARTSTACK_CZLIB_SHIM_H
#define SMARTSTACK_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit2 is a macro; Swift needs a function.
static inline int smartstack_inflate_init2(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
