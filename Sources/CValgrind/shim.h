#ifndef WALLETOPS_CVALGRIND_SHIM_H
#define WALLETOPS_CVALGRIND_SHIM_H
#include <stddef.h>
/* Memcheck's client requests (Debian package valgrind) behind functions Swift can call. Without the
   header the calls do nothing and walletops_valgrind_header() says so: the build never needs valgrind. */
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
static inline int walletops_valgrind_header(void) { return 1; }
static inline unsigned walletops_running_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
static inline void walletops_mark_undefined(const void *p, size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
static inline void walletops_mark_defined(const void *p, size_t n) { VALGRIND_MAKE_MEM_DEFINED(p, n); }
static inline unsigned walletops_memcheck_errors(void) { return VALGRIND_COUNT_ERRORS; }
#else
static inline int walletops_valgrind_header(void) { return 0; }
static inline unsigned walletops_running_on_valgrind(void) { return 0; }
static inline void walletops_mark_undefined(const void *p, size_t n) { (void)p; (void)n; }
static inline void walletops_mark_defined(const void *p, size_t n) { (void)p; (void)n; }
static inline unsigned walletops_memcheck_errors(void) { return 0; }
#endif
#endif
