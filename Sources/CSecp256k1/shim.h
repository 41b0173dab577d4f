#ifndef WALLETOPS_CSECP256K1_SHIM_H
#define WALLETOPS_CSECP256K1_SHIM_H
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <secp256k1_ecdh.h>
#include <secp256k1_extrakeys.h>
#endif
