/* An allocator linked into the executable, as a static jemalloc or a
 * sanitizer's runtime linked statically would be: linked with trivial.c,
 * whose job it runs.  Each function hands the call to the C library's own
 * allocator under its other name. */
#include <stddef.h>

extern void *__libc_malloc(size_t bytes);
extern void *__libc_calloc(size_t count, size_t bytes);
extern void *__libc_realloc(void *p, size_t bytes);
extern void *__libc_memalign(size_t alignment, size_t bytes);
extern void __libc_free(void *p);

void *malloc(size_t bytes) { return __libc_malloc(bytes); }
void *calloc(size_t count, size_t bytes) { return __libc_calloc(count, bytes); }
void *realloc(void *p, size_t bytes) { return __libc_realloc(p, bytes); }
void *memalign(size_t alignment, size_t bytes) { return __libc_memalign(alignment, bytes); }
void *aligned_alloc(size_t alignment, size_t bytes) { return __libc_memalign(alignment, bytes); }
int posix_memalign(void **out, size_t alignment, size_t bytes) {
  void *p = __libc_memalign(alignment, bytes);
  if (!p) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
void free(void *p) { __libc_free(p); }
