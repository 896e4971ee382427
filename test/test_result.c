/* Results: codes, names, descriptions, and the thread-local last error message. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(result, .timeout = KT_TEST_TIMEOUT);

typedef struct {
    krt_result code;
    const char *name;
} code_name;

#define KT_CODE_NAME_(name, value, text) {KRT_##name, "KRT_" #name},
static const code_name all_codes[] = {KRT_RESULT_LIST(KT_CODE_NAME_)};
#undef KT_CODE_NAME_
#define NUM_CODES (sizeof all_codes / sizeof all_codes[0])

Test(result, every_name_is_the_enumerator_name)
{
    for (size_t i = 0; i < NUM_CODES; i++) {
        const char *got = krt_result_name(all_codes[i].code);
        cr_assert_not_null(got, "no name for %d", (int)all_codes[i].code);
        cr_assert_str_eq(got, all_codes[i].name, "code %d", (int)all_codes[i].code);
    }
}

Test(result, every_string_is_non_empty_static_and_distinct)
{
    for (size_t i = 0; i < NUM_CODES; i++) {
        const char *s = krt_result_string(all_codes[i].code);
        cr_assert(s != NULL && s[0] != '\0', "empty description for %s", all_codes[i].name);
        cr_assert_eq(s, krt_result_string(all_codes[i].code), "description of %s is not static",
                     all_codes[i].name);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(s, krt_result_string(all_codes[j].code), "%s and %s share a description",
                              all_codes[i].name, all_codes[j].name);
    }
}

Test(result, unknown_codes_have_the_unknown_name)
{
    const krt_result unknown[] = {(krt_result)3, (krt_result)-19, (krt_result)12345, (krt_result)-99999};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        cr_assert_str_eq(krt_result_name(unknown[i]), "KRT_UNKNOWN_RESULT", "code %d", (int)unknown[i]);
        const char *s = krt_result_string(unknown[i]);
        cr_assert(s != NULL && s[0] != '\0', "code %d", (int)unknown[i]);
    }
}

Test(result, last_error_is_empty_before_any_failure)
{
    const char *m = krt_last_error_message();
    cr_assert_not_null(m);
    cr_assert_str_empty(m);
}

Test(result, failure_sets_a_message)
{
    KT_EXPECT(krt_device_list(NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_device_info info;
    KT_EXPECT(krt_context_device_info(NULL, &info), KRT_ERROR_INVALID_ARGUMENT);
}

static void *fail_in_thread(void *arg)
{
    char **out = arg;
    /* A new thread starts without a message, whatever the main thread did. */
    out[0] = strdup(krt_last_error_message());
    krt_result r = krt_device_list(NULL, NULL);
    out[1] = r == KRT_ERROR_INVALID_ARGUMENT ? strdup(krt_last_error_message()) : NULL;
    return NULL;
}

Test(result, last_error_is_thread_local)
{
    KT_EXPECT(krt_device_list(NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    char *mine = strdup(krt_last_error_message());
    cr_assert_not_null(mine);

    char *theirs[2] = {NULL, NULL};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, fail_in_thread, theirs), 0);
    cr_assert_eq(pthread_join(t, NULL), 0);
    cr_assert_not_null(theirs[0]);
    cr_assert_str_empty(theirs[0], "a new thread inherited a message");
    cr_assert(theirs[1] != NULL && theirs[1][0] != '\0', "the other thread's failure left no message");
    /* The other thread's failure did not touch this thread's message. */
    cr_assert_str_eq(krt_last_error_message(), mine);
    free(mine);
    free(theirs[0]);
    free(theirs[1]);
}
