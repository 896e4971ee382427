// krt.h must compile as C++ (built as C++11 and C++17 with -pedantic -Werror; see test/test.mk) and give the
// same layouts as C. KT_LAYOUT_FN names the function for the standard in use.
#include "krt.h"
#include "krt.h"

#include "krt_header_layout.h"

extern "C" void KT_LAYOUT_FN(size_t *out)
{
    size_t i = 0;
#define KT_STORE_(e) out[i++] = (size_t)(e);
    KT_LAYOUT_LIST(KT_STORE_)
#undef KT_STORE_
}

// Calls into libkrt from C++: the link of test_header fails unless krt.h gives the functions C linkage.
extern "C" const char *KT_NAME_FN(int code)
{
    return krt_result_name(static_cast<krt_result>(code));
}
