#!/bin/sh
# test/header/rvalue.sh: KRT_ARG given a value instead of a variable (KRT_ARG(3.0f)) must not compile, and the
# compiler's error must name the fix (KRT_F32, KRT_I32: krt.h's KRT_ARG_WANTS_A_VARIABLE_... macro); the helpers and
# KRT_ARG of a variable compile. With cc, and with clang-15 where it is installed. Run by make test from the root.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/value.c" <<'C'
#include <krt.h>
int main(void) { krt_arg a[] = { KRT_ARG(3.0f) }; return (int)a[0].size; }
C
cat >"$dir/fixed.c" <<'C'
#include <krt.h>
int main(void)
{
    float alpha = 3.0f;
    krt_arg a[] = { KRT_ARG(alpha), KRT_F32(3.0f), KRT_I32(7 - 1) };
    return a[0].value == &alpha && a[1].type == KRT_ARG_TYPE_FLOAT && *(const float *)a[1].value == 3.0f &&
                   a[2].type == KRT_ARG_TYPE_INT32 && *(const int32_t *)a[2].value == 6
               ? 0
               : 1;
}
C
for c in cc clang-15; do
    command -v $c >/dev/null 2>&1 || { echo "rvalue: $c not installed, skipped"; continue; }
    for std in c11 c99; do
        if $c -std=$std -Iruntime/include -c "$dir/value.c" -o "$dir/value.o" 2>"$dir/err.txt"; then
            echo "rvalue: $c -std=$std compiled KRT_ARG(3.0f)" >&2; exit 1
        fi
        grep -q "KRT_F32" "$dir/err.txt" || { cat "$dir/err.txt"; echo "rvalue: $c -std=$std: the error does not name KRT_F32" >&2; exit 1; }
        $c -std=$std -Wall -Wextra -Werror -Iruntime/include "$dir/fixed.c" -o "$dir/fixed"
        "$dir/fixed" || { echo "rvalue: $c -std=$std: the fixed arguments are wrong" >&2; exit 1; }
        echo "rvalue: $c -std=$std: ok"
    done
done
