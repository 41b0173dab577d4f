/* The floor of each case of `make bench`, in C with the libraries walletops links (libsecp256k1,
 * libsodium, OpenSSL, SQLite): the work each item cannot avoid under our protocol, whatever the code
 * around it does. Per-request work (request signatures, attestation, HPKE setup) is divided by the
 * batch size given (default 100): batching may amortize it, nothing removes the per-item part.
 *
 *     case_floor [BATCH]
 *
 * Prints "case<TAB>us_per_item<TAB>items_per_s_on_all_cores<TAB>what" per case. Each primitive is
 * timed in this thread's CPU time (the machine is shared: a busy neighbour stretches wall time, not
 * the CPU an operation needs), the fastest of several rounds. */
#define _XOPEN_SOURCE 700
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <secp256k1.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ec_ops.h"
#include "keccak.h"
#include "scrypt_warm.h"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

typedef void (*op_fn)(void *state);

/* The fastest round's microseconds per call of `op`, after a warm-up. */
static double measure(op_fn op, void *state, int iterations, int rounds) {
    double best = 1e30;
    for (int i = 0; i < iterations / 10 + 1; i++) op(state);
    for (int r = 0; r < rounds; r++) {
        double start = now_us();
        for (int i = 0; i < iterations; i++) op(state);
        double per = (now_us() - start) / iterations;
        if (per < best) best = per;
    }
    return best;
}

static uint8_t sink;

/* --- the per-item parts --- */

static void op_random32(void *p) {
    uint8_t key[32];
    (void)p;
    if (RAND_bytes(key, 32) != 1) abort();
    sink ^= key[0];
}

/* EIP-55: keccak of the 40 lowercase hex digits picks each letter's case. */
static void eip55(const uint8_t address[20], char out[43]) {
    static const char hex[] = "0123456789abcdef";
    char lower[40];
    uint8_t hash[32];
    for (int i = 0; i < 20; i++) { lower[2 * i] = hex[address[i] >> 4]; lower[2 * i + 1] = hex[address[i] & 15]; }
    keccak256((const uint8_t *)lower, 40, hash);
    out[0] = '0'; out[1] = 'x';
    for (int i = 0; i < 40; i++) {
        int nibble = (hash[i / 2] >> (i % 2 ? 0 : 4)) & 15;
        out[2 + i] = (lower[i] >= 'a' && nibble >= 8) ? (char)(lower[i] - 32) : lower[i];
    }
    out[42] = 0;
}

struct secp_state { secp256k1_context *ctx; uint8_t key[32]; };
static void op_secp_address(void *p) {
    struct secp_state *s = p;
    secp256k1_pubkey pub;
    uint8_t serialized[65], hash[32];
    size_t len = 65;
    char text[43];
    s->key[31]++;
    if (!secp256k1_ec_pubkey_create(s->ctx, &pub, s->key)) abort();
    secp256k1_ec_pubkey_serialize(s->ctx, serialized, &len, &pub, SECP256K1_EC_UNCOMPRESSED);
    keccak256(serialized + 1, 64, hash);
    eip55(hash + 12, text);
    sink ^= (uint8_t)text[5];
}

static void base58(const uint8_t *in, size_t len, char *out) {
    static const char alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    uint8_t digits[64] = {0};
    size_t count = 0, zeros = 0;
    while (zeros < len && in[zeros] == 0) zeros++;
    for (size_t i = zeros; i < len; i++) {
        unsigned carry = in[i];
        for (size_t j = 0; j < count; j++) { carry += (unsigned)digits[j] << 8; digits[j] = carry % 58; carry /= 58; }
        while (carry) { digits[count++] = carry % 58; carry /= 58; }
    }
    size_t n = 0;
    for (size_t i = 0; i < zeros; i++) out[n++] = '1';
    for (size_t i = 0; i < count; i++) out[n++] = alphabet[digits[count - 1 - i]];
    out[n] = 0;
}

struct ed_state { uint8_t seed[32]; };
static void op_ed25519_address(void *p) {
    struct ed_state *s = p;
    uint8_t pk[32], sk[64];
    char text[64];
    s->seed[0]++;
    crypto_sign_seed_keypair(pk, sk, s->seed);
    base58(pk, 32, text);
    sink ^= (uint8_t)text[3];
}

/* AES-256-GCM of a 32-byte key: sealing under the KEK (storage), opening the import's HPKE payload. */
struct gcm_state { EVP_CIPHER_CTX *ctx; uint8_t key[32]; uint8_t nonce[12]; uint8_t buf[32]; uint8_t tag[16]; };
static void op_gcm_seal(void *p) {
    struct gcm_state *s = p;
    int len;
    uint8_t out[32];
    if (RAND_bytes(s->nonce, 12) != 1) abort();
    if (EVP_EncryptInit_ex(s->ctx, NULL, NULL, NULL, s->nonce) != 1 ||
        EVP_EncryptUpdate(s->ctx, NULL, &len, (const uint8_t *)"wallet-id-as-aad", 16) != 1 ||
        EVP_EncryptUpdate(s->ctx, out, &len, s->buf, 32) != 1 || EVP_EncryptFinal_ex(s->ctx, out + len, &len) != 1 ||
        EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_GCM_GET_TAG, 16, s->tag) != 1) abort();
    sink ^= out[0];
}
struct gcm_open_state { EVP_CIPHER_CTX *ctx; uint8_t nonce[12]; uint8_t sealed[32]; uint8_t tag[16]; };
static void op_gcm_open(void *p) {
    struct gcm_open_state *s = p;
    int len;
    uint8_t out[32];
    if (EVP_DecryptInit_ex(s->ctx, NULL, NULL, NULL, s->nonce) != 1 ||
        EVP_DecryptUpdate(s->ctx, out, &len, s->sealed, 32) != 1 ||
        EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_GCM_SET_TAG, 16, s->tag) != 1 ||
        EVP_DecryptFinal_ex(s->ctx, out + len, &len) != 1) abort();
    sink ^= out[0];
}

/* --- the per-request parts (divided by the batch) --- */

static void op_p256_keygen(void *p) {
    (void)p;
    EVP_PKEY *key = ec_key("P-256");
    if (!key) abort();
    EVP_PKEY_free(key);
}

/* --- keystore V3: scrypt n=2^18 r=8 p=1, the MAC and AES-128-CTR --- */

static void op_scrypt(void *p) {
    uint8_t derived[32], salt[32] = {1};
    (void)p;
    if (crypto_pwhash_scryptsalsa208sha256_ll((const uint8_t *)"bench-keystore-password", 23, salt, 32,
            1ULL << 18, 8, 1, derived, 32) != 0) abort();
    sink ^= derived[0];
}
/* The same derivation in memory kept from call to call (scrypt_warm.h). */
static void op_scrypt_warm(void *p) {
    uint8_t derived[32], salt[32] = {1};
    if (scrypt_warm((const uint8_t *)"bench-keystore-password", 23, salt, 32, 1ULL << 18, 8, p, derived, 32) != 0)
        abort();
    sink ^= derived[0];
}
/* Two derivations at once in kept memory: walletops' pairs (two keystores per core). */
struct pair_scratch { lanes4 *first, *second; };
static void op_scrypt_warm_pair(void *p) {
    struct pair_scratch *s = p;
    uint8_t first[32], second[32], salt0[32] = {1}, salt1[32] = {2};
    if (scrypt_warm_pair((const uint8_t *)"bench-keystore-password", 23, salt0, salt1, 32, 1ULL << 18, 8, s->first,
            s->second, first, second, 32) != 0)
        abort();
    sink ^= first[0] ^ second[0];
}
/* scrypt_warm and scrypt_warm_pair must give libsodium's keys, or their times would mean nothing. */
static int scrypt_warm_self_check(void) {
    static const uint8_t rfc_empty[8] = {0x77, 0xd6, 0x57, 0x62, 0x38, 0x65, 0x7b, 0x20}; /* RFC 7914 s. 12 */
    uint8_t ours[64], theirs[64], salt[32] = {7};
    lanes4 *scratch = aligned_alloc(64, 128 * 8 * (1024 + 2));
    int ok = scratch && scrypt_warm((const uint8_t *)"", 0, (const uint8_t *)"", 0, 16, 1, scratch, ours, 64) == 0 &&
             memcmp(ours, rfc_empty, 8) == 0 &&
             scrypt_warm((const uint8_t *)"pw", 2, salt, 32, 1024, 8, scratch, ours, 64) == 0 &&
             crypto_pwhash_scryptsalsa208sha256_ll((const uint8_t *)"pw", 2, salt, 32, 1024, 8, 1, theirs, 64) == 0 &&
             memcmp(ours, theirs, 64) == 0;
    uint8_t pair0[64], pair1[64], salt1[32] = {8};
    lanes4 *scratch1 = aligned_alloc(64, 128 * 8 * (1024 + 2));
    ok = ok && scratch1 &&
         scrypt_warm_pair((const uint8_t *)"pw", 2, salt, salt1, 32, 1024, 8, scratch, scratch1, pair0, pair1, 64) == 0 &&
         memcmp(pair0, theirs, 64) == 0 &&
         crypto_pwhash_scryptsalsa208sha256_ll((const uint8_t *)"pw", 2, salt1, 32, 1024, 8, 1, theirs, 64) == 0 &&
         memcmp(pair1, theirs, 64) == 0;
    free(scratch);
    free(scratch1);
    return ok;
}
static void op_keystore_mac_ctr(void *p) {
    uint8_t derived[32] = {2}, mac_input[16 + 32] = {0}, mac[32], iv[16] = {0}, cipher[32] = {3}, plain[32];
    int len;
    (void)p;
    memcpy(mac_input, derived + 16, 16);
    memcpy(mac_input + 16, cipher, 32);
    keccak256(mac_input, sizeof mac_input, mac);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (EVP_DecryptInit_ex(ctx, EVP_aes_128_ctr(), NULL, derived, iv) != 1 ||
        EVP_DecryptUpdate(ctx, plain, &len, cipher, 32) != 1) abort();
    EVP_CIPHER_CTX_free(ctx);
    sink ^= mac[0] ^ plain[0];
}

/* --- the engine: one checkpoint row per item, 1,000 per transaction, WAL, synchronous=NORMAL --- */

struct sqlite_state { sqlite3 *db; sqlite3_stmt *upsert; long item; };
static void op_checkpoint(void *p) {
    struct sqlite_state *s = p;
    char key[32];
    if (s->item % 1000 == 0) sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    int n = snprintf(key, sizeof key, "item-%ld", s->item);
    sqlite3_bind_text(s->upsert, 1, key, n, SQLITE_STATIC);
    sqlite3_bind_double(s->upsert, 2, (double)s->item);
    if (sqlite3_step(s->upsert) != SQLITE_DONE) abort();
    sqlite3_reset(s->upsert);
    if (++s->item % 1000 == 0) sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
}

static void row(const char *name, double us, double cores, const char *what) {
    printf("%s\t%.3f\t%.2f\t%s\n", name, us, cores * 1e6 / us, what);
}

int main(int argc, char **argv) {
    int batch = argc > 1 ? atoi(argv[1]) : 100;
    if (batch < 1 || sodium_init() < 0 || !keccak_self_check() || !scrypt_warm_self_check()) {
        fprintf(stderr, "case_floor: bad batch or self-check failed\n");
        return 1;
    }
    double cores = (double)sysconf(_SC_NPROCESSORS_ONLN);

    double random32 = measure(op_random32, NULL, 20000, 7);
    struct secp_state secp = {.ctx = secp256k1_context_create(SECP256K1_CONTEXT_SIGN)};
    memset(secp.key, 0x11, 32);
    double secp_address = measure(op_secp_address, &secp, 2000, 7);
    struct ed_state ed = {{0}};
    double ed_address = measure(op_ed25519_address, &ed, 2000, 7);

    struct gcm_state gcm = {.ctx = EVP_CIPHER_CTX_new()};
    RAND_bytes(gcm.key, 32);
    if (EVP_EncryptInit_ex(gcm.ctx, EVP_aes_256_gcm(), NULL, gcm.key, gcm.nonce) != 1) return 1;
    double seal = measure(op_gcm_seal, &gcm, 20000, 7);
    struct gcm_open_state open = {.ctx = EVP_CIPHER_CTX_new()};
    {
        int len;
        EVP_CIPHER_CTX *enc = EVP_CIPHER_CTX_new();
        EVP_EncryptInit_ex(enc, EVP_aes_256_gcm(), NULL, gcm.key, open.nonce);
        EVP_EncryptUpdate(enc, open.sealed, &len, gcm.buf, 32);
        EVP_EncryptFinal_ex(enc, open.sealed + len, &len);
        EVP_CIPHER_CTX_ctrl(enc, EVP_CTRL_GCM_GET_TAG, 16, open.tag);
        EVP_CIPHER_CTX_free(enc);
        EVP_DecryptInit_ex(open.ctx, EVP_aes_256_gcm(), NULL, gcm.key, open.nonce);
    }
    double gcm_open = measure(op_gcm_open, &open, 20000, 7);

    /* The bytes each request signature covers. */
    static const uint8_t signed_bytes[420];
    struct ec_state p256 = {
        .key = ec_key("P-256"), .peer = ec_key("P-256"), .md = EVP_sha256(), .msg = signed_bytes,
        .msglen = sizeof signed_bytes};
    double p256_sign = measure(op_ec_sign, &p256, 500, 7);
    double p256_verify = measure(op_ec_verify, &p256, 300, 7);
    double p256_ecdh = measure(op_ecdh, &p256, 300, 7);
    double p256_keygen = measure(op_p256_keygen, NULL, 300, 7);
    struct ec_state p384 = {
        .key = ec_key("P-384"), .md = EVP_sha384(), .msg = signed_bytes, .msglen = sizeof signed_bytes};
    double p384_sign = measure(op_ec_sign, &p384, 40, 5);
    double p384_verify = measure(op_ec_verify, &p384, 40, 5);

    double scrypt_fresh = measure(op_scrypt, NULL, 1, 3);
    lanes4 *scratch = aligned_alloc(64, 128 * 8 * ((1 << 18) + 2));
    if (!scratch) return 1;
    double scrypt_kept = measure(op_scrypt_warm, scratch, 1, 3); /* the warm-up call faults the pages in */
    struct pair_scratch pair = {scratch, aligned_alloc(64, 128 * 8 * ((1 << 18) + 2))};
    if (!pair.second) return 1;
    double scrypt_pair = measure(op_scrypt_warm_pair, &pair, 1, 3);
    free(pair.second);
    free(scratch);
    double scrypt = scrypt_kept < scrypt_fresh ? scrypt_kept : scrypt_fresh;
    double keystore_rest = measure(op_keystore_mac_ctr, NULL, 2000, 7);

    char path[] = "/tmp/walletops-floor-XXXXXX";
    if (!mkdtemp(path)) return 1;
    char file[64];
    snprintf(file, sizeof file, "%s/runs.sqlite", path);
    struct sqlite_state sq = {0};
    sqlite3_open(file, &sq.db);
    sqlite3_exec(sq.db,
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
        "CREATE TABLE items(run_id INTEGER, step TEXT, item_key TEXT, state TEXT, attempts INTEGER,"
        " updated_at REAL, PRIMARY KEY(run_id, step, item_key)) WITHOUT ROWID",
        NULL, NULL, NULL);
    sqlite3_prepare_v2(sq.db,
        "INSERT INTO items VALUES (1, 'noop', ?1, 'succeeded', 1, ?2) ON CONFLICT(run_id, step, item_key)"
        " DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
        -1, &sq.upsert, NULL);
    double checkpoint = measure(op_checkpoint, &sq, 100000, 5);
    sqlite3_finalize(sq.upsert);
    sqlite3_close(sq.db);
    char cleanup[128];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", path);
    if (system(cleanup) != 0) return 1;

    /* A signed request: the client's P-256 signature and the core's check of it. */
    double request = p256_sign + p256_verify;
    /* An attested exchange per batch: GetRecipientKey (fresh HPKE key pair) and ImportWallet, each
     * answered with a P-384-signed document the client verifies; HPKE encap (key pair + ECDH) at the
     * client and decap (ECDH) at the core; two signed requests. */
    double attested = 2 * p384_sign + 2 * p384_verify + p256_keygen + (p256_keygen + p256_ecdh) + p256_ecdh +
                      2 * request;
    double create_batch = request / batch;
    double import_batch = attested / batch;
    char what[512];

    snprintf(what, sizeof what, "random 32 B + secp256k1 key + keccak address + EIP-55 + AES-256-GCM seal "
             "(KEK) + 1 signed request / %d", batch);
    row("create-eth", random32 + secp_address + seal + create_batch, cores, what);
    snprintf(what, sizeof what, "random 32 B + Ed25519 key from seed + base58 address + AES-256-GCM seal "
             "+ 1 signed request / %d", batch);
    row("create-sol", random32 + ed_address + seal + create_batch, cores, what);
    snprintf(what, sizeof what, "AES-256-GCM open (HPKE payload) + secp256k1 key + keccak address + EIP-55 + "
             "AES-256-GCM seal + attested exchange / %d (2 P-384 sign, 2 verify, HPKE, 2 requests)", batch);
    row("import-eth", gcm_open + secp_address + seal + import_batch, cores, what);
    snprintf(what, sizeof what, "AES-256-GCM open + Ed25519 key from seed + base58 address + AES-256-GCM seal "
             "+ attested exchange / %d", batch);
    row("import-sol", gcm_open + ed_address + seal + import_batch, cores, what);
    snprintf(what, sizeof what, "scrypt n=2^18 r=8 p=1 (%s) + keccak MAC + AES-128-CTR + the import-eth item; "
             "two scrypts at once on one core: %.2f/s on all cores", scrypt == scrypt_kept ? "C ROMix in kept memory" :
             "libsodium", 2 * cores * 1e6 / (scrypt_pair + 2 * (keystore_rest + gcm_open + secp_address + seal + import_batch)));
    row("keystore", scrypt + keystore_rest + gcm_open + secp_address + seal + import_batch, cores, what);
    row("sweep-plan", request / 100, cores, "1 signed ListAccess request per page of 100 grants");
    row("sweep-apply", request, cores, "1 signed RevokeAccess request per grant (per session)");
    row("usage", 2 * request, cores, "2 signed requests per session (GetSession, GetSessionUsage)");
    row("noop", checkpoint, 1, "SQLite checkpoint upsert, 1,000 per transaction, WAL (one writer: 1 core)");

    fprintf(stderr,
        "parts (us): random32 %.2f, secp256k1+address %.2f, ed25519+address %.2f, gcm seal %.2f, gcm open %.2f, "
        "P-256 sign %.1f, verify %.1f, ECDH %.1f, keygen %.1f, P-384 sign %.1f, verify %.1f, scrypt %.0f "
        "(libsodium) / %.0f (kept memory) / %.0f for two at once (kept memory), "
        "checkpoint %.2f\n",
        random32, secp_address, ed_address, seal, gcm_open, p256_sign, p256_verify, p256_ecdh, p256_keygen, p384_sign,
        p384_verify, scrypt_fresh, scrypt_kept, scrypt_pair, checkpoint);
    return sink == 0x5a ? 0 : 0;
}
