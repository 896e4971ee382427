/* Valid SPIR-V that no driver can build: the kernel calls a function the module only imports (Linkage
 * capability, LinkageAttributes Import) and nothing provides. */
void krt_missing_function(global int *p);

kernel void krt_calls_missing(global int *p)
{
    krt_missing_function(p);
}
