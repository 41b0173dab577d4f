#ifndef WALLETOPS_COPENSSL_SHIM_H
#define WALLETOPS_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/asn1.h>
#include <openssl/rsa.h>

/* EVP_PKEY_Q_keygen is variadic, which Swift cannot call. */
static inline EVP_PKEY *walletops_rsa_keygen(size_t bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", bits);
}
/* EVP_PKEY_PUBLIC_KEY is built from other macros, which Swift does not import. */
static inline int walletops_rsa_public_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
#endif
