/* P-256/P-384 operations for the C floors (crypto_floor.c, case_floor.c), through OpenSSL's EVP API as
 * walletops calls it: ECDSA sign and verify of a message, ECDH with a peer key. Each floor owns its
 * message (64 B in crypto_floor, a 420 B request body in case_floor). */
#ifndef WALLETOPS_FLOOR_EC_OPS_H
#define WALLETOPS_FLOOR_EC_OPS_H
#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct ec_state {
    EVP_PKEY *key;
    EVP_PKEY *peer;
    const EVP_MD *md;
    const uint8_t *msg;
    size_t msglen;
    uint8_t sig[160];
    size_t siglen;
    uint8_t secret[48]; /* the last ECDH output, kept so the work stays observable */
};

/* A fresh key on `curve` ("P-256", "P-384"). */
static EVP_PKEY *ec_key(const char *curve) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve);
}

static void op_ec_sign(void *p) {
    struct ec_state *s = p;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    s->siglen = sizeof s->sig;
    if (EVP_DigestSignInit(ctx, NULL, s->md, NULL, s->key) != 1 ||
        EVP_DigestSign(ctx, s->sig, &s->siglen, s->msg, s->msglen) != 1) abort();
    EVP_MD_CTX_free(ctx);
}

static void op_ec_verify(void *p) {
    struct ec_state *s = p;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (EVP_DigestVerifyInit(ctx, NULL, s->md, NULL, s->key) != 1 ||
        EVP_DigestVerify(ctx, s->sig, s->siglen, s->msg, s->msglen) != 1) abort();
    EVP_MD_CTX_free(ctx);
}

static void op_ecdh(void *p) {
    struct ec_state *s = p;
    size_t len = sizeof s->secret;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(s->key, NULL);
    if (EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_derive_set_peer(ctx, s->peer) != 1 ||
        EVP_PKEY_derive(ctx, s->secret, &len) != 1) abort();
    EVP_PKEY_CTX_free(ctx);
}
#endif
