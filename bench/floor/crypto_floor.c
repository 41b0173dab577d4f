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

/* Keccak-256 (the same permutation the Swift code runs; written here only to measure the floor). */
static const uint64_t RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
static const int ROT[25] = {0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14};
#define ROL(x, n) (((x) << (n)) | ((x) >> ((64 - (n)) & 63)))

/* Rho offsets and pi destinations in lane order; the round loop is fully unrolled by the compiler. */
static const int PI_DEST[25] = {0, 10, 20, 5, 15, 16, 1, 11, 21, 6, 7, 17, 2, 12, 22, 23, 8, 18, 3, 13, 14, 24, 9, 19, 4};

static inline void keccak_f(uint64_t a[25]) {
    for (int round = 0; round < 24; round++) {
        uint64_t c[5], b[25];
#pragma GCC unroll 5
        for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
#pragma GCC unroll 5
        for (int x = 0; x < 5; x++) {
            uint64_t d = c[(x + 4) % 5] ^ ROL(c[(x + 1) % 5], 1);
#pragma GCC unroll 5
            for (int y = 0; y < 25; y += 5) a[y + x] ^= d;
        }
#pragma GCC unroll 25
        for (int i = 0; i < 25; i++) b[PI_DEST[i]] = ROL(a[i], ROT[i]);
#pragma GCC unroll 5
        for (int y = 0; y < 25; y += 5) {
#pragma GCC unroll 5
            for (int x = 0; x < 5; x++) a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
        }
        a[0] ^= RC[round];
    }
}

static void keccak256(const uint8_t *in, size_t len, uint8_t out[32]) {
    uint64_t a[25] = {0};
    const size_t rate = 136;
    uint8_t block[136];
    while (len >= rate) {
        for (size_t i = 0; i < rate / 8; i++) { uint64_t w; memcpy(&w, in + 8 * i, 8); a[i] ^= w; }
        keccak_f(a);
        in += rate;
        len -= rate;
    }
    memset(block, 0, rate);
    memcpy(block, in, len);
    block[len] ^= 0x01;
    block[rate - 1] ^= 0x80;
    for (size_t i = 0; i < rate / 8; i++) { uint64_t w; memcpy(&w, block + 8 * i, 8); a[i] ^= w; }
    keccak_f(a);
    memcpy(out, a, 32);
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

struct ec_state { EVP_PKEY *key; EVP_PKEY *peer; const EVP_MD *md; uint8_t msg[64]; uint8_t sig[160]; size_t siglen; };
static void op_ec_sign(void *p) {
    struct ec_state *s = p;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    s->siglen = sizeof s->sig;
    if (EVP_DigestSignInit(ctx, NULL, s->md, NULL, s->key) != 1 ||
        EVP_DigestSign(ctx, s->sig, &s->siglen, s->msg, sizeof s->msg) != 1) abort();
    EVP_MD_CTX_free(ctx);
}
static void op_ec_verify(void *p) {
    struct ec_state *s = p;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (EVP_DigestVerifyInit(ctx, NULL, s->md, NULL, s->key) != 1 ||
        EVP_DigestVerify(ctx, s->sig, s->siglen, s->msg, sizeof s->msg) != 1) abort();
    EVP_MD_CTX_free(ctx);
}
static void op_ecdh(void *p) {
    struct ec_state *s = p;
    uint8_t secret[48];
    size_t len = sizeof secret;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(s->key, NULL);
    if (EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_derive_set_peer(ctx, s->peer) != 1 ||
        EVP_PKEY_derive(ctx, secret, &len) != 1) abort();
    EVP_PKEY_CTX_free(ctx);
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

static EVP_PKEY *ec_key(const char *curve) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    /* The floor's keccak must be keccak: check keccak256("") before timing it. */
    static const uint8_t empty_digest[32] = {0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d,
        0xb2, 0xdc, 0xc7, 0x03, 0xc0, 0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04,
        0x5d, 0x85, 0xa4, 0x70};
    uint8_t check[32];
    keccak256(NULL, 0, check);
    if (memcmp(check, empty_digest, 32) != 0) { fprintf(stderr, "keccak self-check failed\n"); return 1; }
    struct secp_state secp = {.ctx = secp256k1_context_create(SECP256K1_CONTEXT_SIGN)};
    memset(secp.key, 0x11, 32);
    measure("secp256k1 public key + Ethereum address", op_secp_address, &secp, 2500);

    struct ed_state ed = {{0}};
    measure("Ed25519 keypair from seed", op_ed25519_keypair, &ed, 2500);

    struct keccak_state kc = {{0}};
    measure("keccak-256 of 64 B", op_keccak64, &kc, 62500);

    struct ec_state p256 = {.key = ec_key("P-256"), .peer = ec_key("P-256"), .md = EVP_sha256()};
    measure("P-256 ECDSA sign", op_ec_sign, &p256, 625);
    measure("P-256 ECDSA verify", op_ec_verify, &p256, 375);
    measure("P-256 ECDH", op_ecdh, &p256, 375);

    struct ec_state p384 = {.key = ec_key("P-384"), .peer = ec_key("P-384"), .md = EVP_sha384()};
    measure("P-384 ECDSA sign", op_ec_sign, &p384, 37);
    measure("P-384 ECDSA verify", op_ec_verify, &p384, 37);

    struct gcm_state gcm = {.ctx = EVP_CIPHER_CTX_new()};
    if (EVP_EncryptInit_ex(gcm.ctx, EVP_aes_256_gcm(), NULL, gcm.key, gcm.nonce) != 1) return 1;
    measure("AES-256-GCM seal of 32 B (reused context)", op_gcm32, &gcm, 62500);
    return 0;
}
