/* scrypt (RFC 7914) over memory mapped once and kept, for the keystore floor: written here only to
 * measure it. libsodium's scrypt maps fresh memory on every call, and faulting in 256 MiB costs the
 * kernel about 0.1 s per derivation at n = 2^18, r = 8; walletops keeps its memory between keystores
 * (Scrypt.Workspace), so the floor must not charge that cost either. The ROMix below keeps each 64-byte
 * Salsa20 sub-block as its four diagonals (x0 x5 x10 x15 | x4 x9 x14 x3 | x8 x13 x2 x7 | x12 x1 x6 x11),
 * as walletops' Swift kernel does, so the floor is the same algorithm in C. romix_pair runs two instances in
 * the halves of 256-bit vectors, as walletops' pool does for two keystores with the same n and r. */
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

/* The 2 r sub-blocks at block, in diagonal order into v; and back. */
static void load_diagonal(const uint8_t *block, lanes4 *v, int r) {
    for (int s = 0; s < 2 * r; s++)
        for (int row = 0; row < 4; row++)
            for (int lane = 0; lane < 4; lane++) {
                uint32_t word;
                memcpy(&word, block + 64 * s + 4 * salsa_word(row, lane), 4);
                v[4 * s + row][lane] = word;
            }
}
static void store_diagonal(const lanes4 *x, uint8_t *block, int r) {
    for (int s = 0; s < 2 * r; s++)
        for (int row = 0; row < 4; row++)
            for (int lane = 0; lane < 4; lane++) {
                uint32_t word = x[4 * s + row][lane];
                memcpy(block + 64 * s + 4 * salsa_word(row, lane), &word, 4);
            }
}

/* ROMix of the 128 r bytes at block, in place; scratch holds (n + 2) * 128 r bytes, 16-byte aligned. */
static void romix(uint8_t *block, uint64_t n, int r, lanes4 *scratch) {
    int per = 8 * r;
    lanes4 *v = scratch, *x = v + (size_t)per * n, *y = x + per;
    load_diagonal(block, v, r);
    for (uint64_t i = 0; i + 1 < n; i++) block_mix(v + i * per, NULL, v + (i + 1) * per, r);
    block_mix(v + (n - 1) * per, NULL, x, r);
    int last = 4 * (2 * r - 1);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j = (((uint64_t)x[last + 3][1] << 32) | x[last][0]) & (n - 1);
        block_mix(x, v + j * per, y, r);
        lanes4 *t = x; x = y; y = t;
    }
    store_diagonal(x, block, r);
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

/* Two instances at once: each 256-bit vector holds instance 0's diagonal in its low half, instance 1's in
 * its high half; the lane turns stay within each half. */
typedef uint32_t lanes8 __attribute__((vector_size(32)));

static inline void salsa20_8_pair(lanes8 *a, lanes8 *b, lanes8 *c, lanes8 *d) {
    lanes8 a0 = *a, b0 = *b, c0 = *c, d0 = *d, x = a0, y = b0, z = c0, w = d0;
    const lanes8 turn1 = {1, 2, 3, 0, 5, 6, 7, 4}, turn2 = {2, 3, 0, 1, 6, 7, 4, 5}, turn3 = {3, 0, 1, 2, 7, 4, 5, 6};
    for (int i = 0; i < 4; i++) {
        y ^= ROTATE(x + w, 7);
        z ^= ROTATE(y + x, 9);
        w ^= ROTATE(z + y, 13);
        x ^= ROTATE(w + z, 18);
        lanes8 rb = __builtin_shuffle(w, turn1), rc = __builtin_shuffle(z, turn2), rd = __builtin_shuffle(y, turn3);
        rb ^= ROTATE(x + rd, 7);
        rc ^= ROTATE(rb + x, 9);
        rd ^= ROTATE(rc + rb, 13);
        x ^= ROTATE(rd + rc, 18);
        w = __builtin_shuffle(rb, turn3);
        z = __builtin_shuffle(rc, turn2);
        y = __builtin_shuffle(rd, turn1);
    }
    *a = x + a0; *b = y + b0; *c = z + c0; *d = w + d0;
}

static inline lanes8 join(lanes4 low, lanes4 high) {
    return (lanes8){low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3]};
}

static inline void split(lanes8 v, lanes4 *low, lanes4 *high) {
    *low = (lanes4){v[0], v[1], v[2], v[3]};
    *high = (lanes4){v[4], v[5], v[6], v[7]};
}

static inline void block_mix_pair(const lanes4 *in0, const lanes4 *in1, const lanes4 *other0, const lanes4 *other1,
    lanes4 *out0, lanes4 *out1, int r) {
    int last = 4 * (2 * r - 1);
    lanes8 a = join(in0[last], in1[last]), b = join(in0[last + 1], in1[last + 1]),
           c = join(in0[last + 2], in1[last + 2]), d = join(in0[last + 3], in1[last + 3]);
    if (other0) {
        a ^= join(other0[last], other1[last]); b ^= join(other0[last + 1], other1[last + 1]);
        c ^= join(other0[last + 2], other1[last + 2]); d ^= join(other0[last + 3], other1[last + 3]);
    }
    for (int i = 0; i < 2 * r; i++) {
        lanes8 ia = join(in0[4 * i], in1[4 * i]), ib = join(in0[4 * i + 1], in1[4 * i + 1]),
               ic = join(in0[4 * i + 2], in1[4 * i + 2]), id = join(in0[4 * i + 3], in1[4 * i + 3]);
        if (other0) {
            ia ^= join(other0[4 * i], other1[4 * i]); ib ^= join(other0[4 * i + 1], other1[4 * i + 1]);
            ic ^= join(other0[4 * i + 2], other1[4 * i + 2]); id ^= join(other0[4 * i + 3], other1[4 * i + 3]);
        }
        a ^= ia; b ^= ib; c ^= ic; d ^= id;
        salsa20_8_pair(&a, &b, &c, &d);
        int o = 4 * ((i & 1) * r + (i >> 1));
        split(a, &out0[o], &out1[o]); split(b, &out0[o + 1], &out1[o + 1]);
        split(c, &out0[o + 2], &out1[o + 2]); split(d, &out0[o + 3], &out1[o + 3]);
    }
}

/* ROMix of two blocks at once, each in place with its own scratch. */
static void romix_pair(uint8_t *block0, uint8_t *block1, uint64_t n, int r, lanes4 *v0, lanes4 *v1) {
    int per = 8 * r, last = 4 * (2 * r - 1);
    load_diagonal(block0, v0, r);
    load_diagonal(block1, v1, r);
    for (uint64_t i = 0; i + 1 < n; i++)
        block_mix_pair(v0 + i * per, v1 + i * per, NULL, NULL, v0 + (i + 1) * per, v1 + (i + 1) * per, r);
    lanes4 *x0 = v0 + (size_t)per * n, *y0 = x0 + per, *x1 = v1 + (size_t)per * n, *y1 = x1 + per;
    block_mix_pair(v0 + (n - 1) * per, v1 + (n - 1) * per, NULL, NULL, x0, x1, r);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j0 = (((uint64_t)x0[last + 3][1] << 32) | x0[last][0]) & (n - 1);
        uint64_t j1 = (((uint64_t)x1[last + 3][1] << 32) | x1[last][0]) & (n - 1);
        block_mix_pair(x0, x1, v0 + j0 * per, v1 + j1 * per, y0, y1, r);
        lanes4 *t = x0; x0 = y0; y0 = t;
        t = x1; x1 = y1; y1 = t;
    }
    store_diagonal(x0, block0, r);
    store_diagonal(x1, block1, r);
}

/* Two scrypt derivations (p = 1, r <= 8, the same n and r, one password) at once; 0 on success. */
static int scrypt_warm_pair(const uint8_t *password, size_t password_len, const uint8_t *salt0, const uint8_t *salt1,
    size_t salt_len, uint64_t n, int r, lanes4 *scratch0, lanes4 *scratch1, uint8_t *out0, uint8_t *out1,
    size_t out_len) {
    uint8_t block0[128 * 8], block1[128 * 8];
    if (r < 1 || r > 8) return -1;
    if (PKCS5_PBKDF2_HMAC((const char *)password, (int)password_len, salt0, (int)salt_len, 1, EVP_sha256(), 128 * r,
            block0) != 1 ||
        PKCS5_PBKDF2_HMAC((const char *)password, (int)password_len, salt1, (int)salt_len, 1, EVP_sha256(), 128 * r,
            block1) != 1) return -1;
    romix_pair(block0, block1, n, r, scratch0, scratch1);
    return PKCS5_PBKDF2_HMAC((const char *)password, (int)password_len, block0, 128 * r, 1, EVP_sha256(),
               (int)out_len, out0) == 1 &&
           PKCS5_PBKDF2_HMAC((const char *)password, (int)password_len, block1, 128 * r, 1, EVP_sha256(),
               (int)out_len, out1) == 1 ? 0 : -1;
}
