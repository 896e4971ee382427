/* krt.h must compile on its own as strict C (this file is built as C11 and as C17 with -pedantic -Werror;
 * see test/test.mk). KT_LAYOUT_FN names the function for the standard in use. */
#include "krt.h"
#include "krt.h" /* the include guard must make a second inclusion harmless */

#include "krt_header_layout.h"

void KT_LAYOUT_FN(size_t *out)
{
    size_t i = 0;
#define KT_STORE_(e) out[i++] = (size_t)(e);
    KT_LAYOUT_LIST(KT_STORE_)
#undef KT_STORE_
    /* The convenience macros are part of the C contract. */
    int x = 3;
    krt_arg a = KRT_ARG(x), l = KRT_ARG_LOCAL(64);
    (void)a;
    (void)l;
}
