#ifndef WALLETOPS_CPOSTGRES_SHIM_H
#define WALLETOPS_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
