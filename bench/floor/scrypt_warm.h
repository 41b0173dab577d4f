/* scrypt (RFC 7914) over memory mapped once and kept, for the keystore floor: written here only to
 * measure it. libsodium's scrypt maps fresh memory on every call, and faulting in 256 MiB costs the
 * kernel about 0.1 s per derivation at n = 2^18, r = 8; walletops keeps its memory between keystores
 * (Scrypt.Workspace), so the floor must not charge that cost either. The ROMix below keeps each 64-byte
 * Salsa20 sub-block as its four diagonals (x0 x5 x10 x15 | x4 x9 x14 x3 | x8 x13 x2 x7 | x12 x1 x6 x11),
 * as walletops' Swift kernel does, so the floor is the same algorithm in C. */
#include <openssl/evp.h>
#include <stdint.h>
#include <string.h>

typedef uint32_t lanes4 __attribute__((vector_size(16)));

#define ROTATE(v, bits) (((v) << (bits)) | ((v) >> (32 - (bits))))

static inline void salsa20_8(lanes4 *a, lanes4 *b, lanes4 *c, lanes4 *d) {
    lanes4 a0 = *a, b0 = *b, c0 = *c, d0 = *d, x = a0, y = b0, z = c0, w = d0;
    for (int i = 0; i < 4; i++) {
        y ^= ROTATE(x + w, 7);
        z ^= ROTATE(y + x, 9);
        w ^= ROTATE(z + y, 13);
        x ^= ROTATE(w + z, 18);
        lanes4 rb = __builtin_shuffle(w, (lanes4){1, 2, 3, 0});
        lanes4 rc = __builtin_shuffle(z, (lanes4){2, 3, 0, 1});
        lanes4 rd = __builtin_shuffle(y, (lanes4){3, 0, 1, 2});
        rb ^= ROTATE(x + rd, 7);
        rc ^= ROTATE(rb + x, 9);
        rd ^= ROTATE(rc + rb, 13);
        x ^= ROTATE(rd + rc, 18);
        w = __builtin_shuffle(rb, (lanes4){3, 0, 1, 2});
        z = __builtin_shuffle(rc, (lanes4){2, 3, 0, 1});
        y = __builtin_shuffle(rd, (lanes4){1, 2, 3, 0});
    }
    *a = x + a0; *b = y + b0; *c = z + c0; *d = w + d0;
}

/* BlockMix of in (xor other, when given) into out, r sub-block pairs, 4 vectors per sub-block. */
static inline void block_mix(const lanes4 *in, const lanes4 *other, lanes4 *out, int r) {
    int last = 4 * (2 * r - 1);
    lanes4 a = in[last], b = in[last + 1], c = in[last + 2], d = in[last + 3];
    if (other) { a ^= other[last]; b ^= other[last + 1]; c ^= other[last + 2]; d ^= other[last + 3]; }
    for (int i = 0; i < 2 * r; i++) {
        lanes4 ia = in[4 * i], ib = in[4 * i + 1], ic = in[4 * i + 2], id = in[4 * i + 3];
        if (other) { ia ^= other[4 * i]; ib ^= other[4 * i + 1]; ic ^= other[4 * i + 2]; id ^= other[4 * i + 3]; }
        a ^= ia; b ^= ib; c ^= ic; d ^= id;
        salsa20_8(&a, &b, &c, &d);
        int o = 4 * ((i & 1) * r + (i >> 1));
        out[o] = a; out[o + 1] = b; out[o + 2] = c; out[o + 3] = d;
    }
}

static inline int salsa_word(int row, int lane) { return (4 * row + 5 * lane) & 15; }

/* ROMix of the 128 r bytes at block, in place; scratch holds (n + 2) * 128 r bytes, 16-byte aligned. */
static void romix(uint8_t *block, uint64_t n, int r, lanes4 *scratch) {
    int per = 8 * r;
    lanes4 *v = scratch, *x = v + (size_t)per * n, *y = x + per;
    for (int s = 0; s < 2 * r; s++)
        for (int row = 0; row < 4; row++)
            for (int lane = 0; lane < 4; lane++) {
                uint32_t word;
                memcpy(&word, block + 64 * s + 4 * salsa_word(row, lane), 4);
                v[4 * s + row][lane] = word;
            }
    for (uint64_t i = 0; i + 1 < n; i++) block_mix(v + i * per, NULL, v + (i + 1) * per, r);
    block_mix(v + (n - 1) * per, NULL, x, r);
    int last = 4 * (2 * r - 1);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j = (((uint64_t)x[last + 3][1] << 32) | x[last][0]) & (n - 1);
        block_mix(x, v + j * per, y, r);
        lanes4 *t = x; x = y; y = t;
    }
    for (int s = 0; s < 2 * r; s++)
        for (int row = 0; row < 4; row++)
            for (int lane = 0; lane < 4; lane++) {
                uint32_t word = x[4 * s + row][lane];
                memcpy(block + 64 * s + 4 * salsa_word(row, lane), &word, 4);
            }
}

/* scrypt with p = 1 and r <= 8 (the keystore's parameters) into out; 0 on success. */
static int scrypt_warm(const uint8_t *password, size_t password_len, const uint8_t *salt, size_t salt_len,
    uint64_t n, int r, lanes4 *scratch, uint8_t *out, size_t out_len) {
    uint8_t block[128 * 8];
    if (r < 1 || r > 8) return -1;
    if (PKCS5_PBKDF2_HMAC((const char *)password, (int)password_len, salt, (int)salt_len, 1, EVP_sha256(),
            128 * r, block) != 1) return -1;
    romix(block, n, r, scratch);
    return PKCS5_PBKDF2_HMAC((const char *)password, (int)password_len, block, 128 * r, 1, EVP_sha256(),
               (int)out_len, out) == 1 ? 0 : -1;
}
