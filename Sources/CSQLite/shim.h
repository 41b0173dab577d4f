#ifndef WALLETOPS_CSQLITE_SHIM_H
#define WALLETOPS_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <malloc.h>
/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
static inline sqlite3_destructor_type walletops_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/* sqlite3_config is variadic, which Swift cannot call. Memory statistics off: with them on, every
   allocation SQLite makes takes a process-wide mutex. Must run before the first connection opens. */
static inline int walletops_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
/* glibc's malloc_trim (malloc.h is not in Swift's Glibc module): gives the pages of freed memory in every
   malloc arena back to the system. */
static inline void walletops_trim_heap(void) { malloc_trim(0); }
#endif
