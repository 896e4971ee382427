/* Stand-in for <criterion/redirect.h> under TSan: see criterion.h beside it. */
#include "criterion.h"
