/* Keccak-256 for the C floors (crypto_floor.c, case_floor.c): the same permutation the Swift code runs,
 * written here only to measure the floor. */
#ifndef WALLETOPS_FLOOR_KECCAK_H
#define WALLETOPS_FLOOR_KECCAK_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* keccak256("") must be c5d2...a470: a floor that measured something else would mean nothing. */
static int keccak_self_check(void) {
    static const uint8_t empty_digest[32] = {0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d,
        0xb2, 0xdc, 0xc7, 0x03, 0xc0, 0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04,
        0x5d, 0x85, 0xa4, 0x70};
    uint8_t check[32];
    keccak256(NULL, 0, check);
    return memcmp(check, empty_digest, 32) == 0;
}
#endif
