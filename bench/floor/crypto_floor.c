/* The crypto floor in C: the same libraries walletops links (libsecp256k1, libsodium, OpenSSL),
 * called directly, so the Swift wrappers can be compared with what the libraries cost by themselves.
 * Prints one line per primitive: name, the fastest round's microseconds per operation (on a shared
 * machine other work only adds time, so the fastest round is the least disturbed; the Swift side
 * is measured the same way). */
#define _POSIX_C_SOURCE 199309L
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/core_names.h>
#include <secp256k1.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ec_ops.h"
#include "keccak.h"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define ROUNDS 15
typedef void (*op_fn)(void *state);

/* Runs `op` `iterations` times per round and prints the median per-op time. */
static void measure(const char *name, op_fn op, void *state, int iterations) {
    double rounds[ROUNDS];
    for (int i = 0; i < iterations / 10 + 1; i++) op(state); /* warm up */
    for (int r = 0; r < ROUNDS; r++) {
        double start = now_us();
        for (int i = 0; i < iterations; i++) op(state);
        rounds[r] = (now_us() - start) / iterations;
    }
    qsort(rounds, ROUNDS, sizeof(double), cmp_double);
    printf("%s\t%.3f\n", name, rounds[0]);
}

struct secp_state { secp256k1_context *ctx; uint8_t key[32]; uint8_t address[20]; };
static void op_secp_address(void *p) {
    struct secp_state *s = p;
    secp256k1_pubkey pub;
    uint8_t serialized[65], hash[32];
    size_t len = 65;
    s->key[31]++;
    if (!secp256k1_ec_pubkey_create(s->ctx, &pub, s->key)) abort();
    secp256k1_ec_pubkey_serialize(s->ctx, serialized, &len, &pub, SECP256K1_EC_UNCOMPRESSED);
    keccak256(serialized + 1, 64, hash);
    memcpy(s->address, hash + 12, 20);
}

struct ed_state { uint8_t seed[32]; uint8_t pk[32]; uint8_t sk[64]; };
static void op_ed25519_keypair(void *p) {
    struct ed_state *s = p;
    s->seed[0]++;
    crypto_sign_seed_keypair(s->pk, s->sk, s->seed);
}

struct keccak_state { uint8_t in[64]; uint8_t out[32]; };
static void op_keccak64(void *p) {
    struct keccak_state *s = p;
    keccak256(s->in, 64, s->out);
    s->in[0] = s->out[0];
}

struct gcm_state { EVP_CIPHER_CTX *ctx; uint8_t key[32]; uint8_t nonce[12]; uint8_t in[32]; uint8_t out[32]; uint8_t tag[16]; };
static void op_gcm32(void *p) {
    struct gcm_state *s = p;
    int len;
    s->nonce[0]++;
    if (EVP_EncryptInit_ex(s->ctx, NULL, NULL, NULL, s->nonce) != 1 ||
        EVP_EncryptUpdate(s->ctx, s->out, &len, s->in, 32) != 1 || EVP_EncryptFinal_ex(s->ctx, s->out + len, &len) != 1 ||
        EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_GCM_GET_TAG, 16, s->tag) != 1) abort();
}

struct pbkdf2_state { char phrase[128]; uint8_t salt[8]; uint8_t seed[64]; };
static void op_pbkdf2_sha512_2048(void *p) {
    struct pbkdf2_state *s = p;
    s->phrase[0]++;
    if (PKCS5_PBKDF2_HMAC(s->phrase, (int)strlen(s->phrase), s->salt, 8, 2048, EVP_sha512(), 64, s->seed) != 1) abort();
}

int main(void) {
    if (sodium_init() < 0) return 1;
    if (!keccak_self_check()) { fprintf(stderr, "keccak self-check failed\n"); return 1; }
    struct secp_state secp = {.ctx = secp256k1_context_create(SECP256K1_CONTEXT_SIGN)};
    memset(secp.key, 0x11, 32);
    measure("secp256k1 public key + Ethereum address", op_secp_address, &secp, 2500);

    struct ed_state ed = {{0}};
    measure("Ed25519 keypair from seed", op_ed25519_keypair, &ed, 2500);

    struct keccak_state kc = {{0}};
    measure("keccak-256 of 64 B", op_keccak64, &kc, 62500);

    static const uint8_t message[64];
    struct ec_state p256 = {
        .key = ec_key("P-256"), .peer = ec_key("P-256"), .md = EVP_sha256(), .msg = message, .msglen = sizeof message};
    measure("P-256 ECDSA sign", op_ec_sign, &p256, 625);
    measure("P-256 ECDSA verify", op_ec_verify, &p256, 375);
    measure("P-256 ECDH", op_ecdh, &p256, 375);

    struct ec_state p384 = {
        .key = ec_key("P-384"), .peer = ec_key("P-384"), .md = EVP_sha384(), .msg = message, .msglen = sizeof message};
    measure("P-384 ECDSA sign", op_ec_sign, &p384, 37);
    measure("P-384 ECDSA verify", op_ec_verify, &p384, 37);

    struct gcm_state gcm = {.ctx = EVP_CIPHER_CTX_new()};
    if (EVP_EncryptInit_ex(gcm.ctx, EVP_aes_256_gcm(), NULL, gcm.key, gcm.nonce) != 1) return 1;
    measure("AES-256-GCM seal of 32 B (reused context)", op_gcm32, &gcm, 62500);

    /* BIP-39's seed: PBKDF2-HMAC-SHA512 of a 12-word phrase, salt "mnemonic", 2048 iterations. */
    struct pbkdf2_state pb = {.phrase = "Legal winner thank year wave sausage worth useful legal winner thank yellow",
                              .salt = {'m', 'n', 'e', 'm', 'o', 'n', 'i', 'c'}};
    measure("PBKDF2-HMAC-SHA512, 2048 iterations (BIP-39 seed)", op_pbkdf2_sha512_2048, &pb, 100);
    return 0;
}
