#ifndef WALLETOPS_CSODIUM_SHIM_H
#define WALLETOPS_CSODIUM_SHIM_H
#include <sodium.h>
#endif
