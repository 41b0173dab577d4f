internal import CSecp256k1
public import Foundation

extension Secp256k1 {
    /// A recoverable ECDSA signature: r || s || v with the recovery id v in {0, 1} (low-S, as signed here).
    ///
    /// Ethereum's `personal_sign` and legacy transactions write v as 27/28; `init(bytes:)` accepts both and
    /// `bytes(vOffset: 27)` produces the 27/28 form. See EIP-191 and the Ethereum Yellow Paper, appendix F.
    public struct RecoverableSignature: Sendable, Hashable {
        /// r (32 bytes) || s (32 bytes), big-endian.
        public let compact: [UInt8]
        /// The recovery id, 0 or 1.
        public let recoveryID: UInt8

        /// Parses 65 bytes r || s || v, with v in {0, 1} or {27, 28}.
        ///
        /// - Throws: `ECCError.Code.invalidSignature` for a wrong length, an unknown v, or r/s not below n.
        public init(bytes: some ContiguousBytes) throws(ECCError) {
            let raw = bytes.withUnsafeBytes { Array($0) }
            guard raw.count == 65 else {
                throw ECCError(.invalidSignature, "secp256k1 signature: expected 65 bytes r||s||v, got \(raw.count)")
            }
            let v = raw[64]
            let id: UInt8
            switch v {
            case 0, 1: id = v
            case 27, 28: id = v - 27
            default: throw ECCError(.invalidSignature, "secp256k1 signature: v must be 0, 1, 27 or 28, got \(v)")
            }
            try self.init(compact: Array(raw[0..<64]), recoveryID: id)
        }

        /// A signature from r || s (64 bytes) and a recovery id in {0, 1}.
        ///
        /// - Throws: `ECCError.Code.invalidSignature` if r or s is zero or not below n, or the id is not 0/1.
        public init(compact: [UInt8], recoveryID: UInt8) throws(ECCError) {
            guard compact.count == 64, recoveryID <= 1 else {
                throw ECCError(.invalidSignature, "secp256k1 signature: need 64 bytes r||s and recovery id 0 or 1")
            }
            var sig = secp256k1_ecdsa_recoverable_signature()
            guard
                secp256k1_ecdsa_recoverable_signature_parse_compact(
                    Context.shared.pointer, &sig, compact, Int32(recoveryID)) == 1,
                !compact[0..<32].allSatisfy({ $0 == 0 }), !compact[32..<64].allSatisfy({ $0 == 0 })
            else {
                throw ECCError(.invalidSignature, "secp256k1 signature: r or s is zero or not below the curve order")
            }
            self.compact = compact
            self.recoveryID = recoveryID
        }

        init(validated sig: secp256k1_ecdsa_recoverable_signature) {
            var sig = sig
            var out = [UInt8](repeating: 0, count: 64)
            var id: Int32 = 0
            _ = secp256k1_ecdsa_recoverable_signature_serialize_compact(Context.shared.pointer, &out, &id, &sig)
            compact = out
            recoveryID = UInt8(id)
        }

        /// r || s || (v + `vOffset`): 65 bytes; pass 27 for the Ethereum `personal_sign` form.
        public func bytes(vOffset: UInt8 = 0) -> [UInt8] {
            compact + [recoveryID + vOffset]
        }

        /// r, 32 bytes big-endian.
        public var r: [UInt8] { Array(compact[0..<32]) }
        /// s, 32 bytes big-endian.
        public var s: [UInt8] { Array(compact[32..<64]) }

        func withParsed<R>(_ body: (inout secp256k1_ecdsa_recoverable_signature) -> R) -> R {
            var sig = secp256k1_ecdsa_recoverable_signature()
            let parsed = secp256k1_ecdsa_recoverable_signature_parse_compact(
                Context.shared.pointer, &sig, compact, Int32(recoveryID))
            precondition(parsed == 1, "a validated secp256k1 signature failed to parse")
            return body(&sig)
        }
    }
}

extension Secp256k1.PrivateKey {
    /// Signs a 32-byte digest (deterministic nonce, RFC 6979), producing a low-S recoverable signature.
    ///
    /// - Throws: `ECCError.Code.invalidDigestLength` if `digest` is not 32 bytes.
    public func signature(forDigest digest: some ContiguousBytes) throws(ECCError) -> Secp256k1.RecoverableSignature {
        try Secp256k1.withDigest(digest) { (hash) throws(ECCError) in
            var sig = secp256k1_ecdsa_recoverable_signature()
            let ok = secret.withUnsafeBytes { raw in
                secp256k1_ecdsa_sign_recoverable(
                    Secp256k1.Context.shared.pointer, &sig, hash, raw.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    nil, nil)
            }
            // Fails only if the nonce function gives up, which RFC 6979 never does for a valid key.
            guard ok == 1 else { throw ECCError(.invalidSignature, "secp256k1: signing failed") }
            return Secp256k1.RecoverableSignature(validated: sig)
        }
    }
}

extension Secp256k1.PublicKey {
    /// Recovers the public key that produced `signature` over the 32-byte `digest`.
    ///
    /// - Throws: `ECCError` `.invalidDigestLength` or `.recoveryFailed`.
    public init(recoveringFrom signature: Secp256k1.RecoverableSignature, digest: some ContiguousBytes)
        throws(ECCError)
    {
        let pubkey = try Secp256k1.withDigest(digest) { (hash) throws(ECCError) -> secp256k1_pubkey in
            var pubkey = secp256k1_pubkey()
            let ok = signature.withParsed { sig in
                secp256k1_ecdsa_recover(Secp256k1.Context.shared.pointer, &pubkey, &sig, hash)
            }
            guard ok == 1 else {
                throw ECCError(.recoveryFailed, "secp256k1: no public key recovers from this signature and digest")
            }
            return pubkey
        }
        self.init(validated: pubkey)
    }

    /// Whether `signature` (r || s) is a valid low-S ECDSA signature by this key over the 32-byte `digest`.
    ///
    /// High-S signatures are refused (BIP 62 / EIP-2 non-malleability); so are wrong digest lengths.
    public func isValidSignature(compact signature: some ContiguousBytes, digest: some ContiguousBytes) -> Bool {
        let sigBytes = signature.withUnsafeBytes { Array($0) }
        guard sigBytes.count == 64 else { return false }
        let ctx = Secp256k1.Context.shared.pointer
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(ctx, &sig, sigBytes) == 1 else { return false }
        return verify(&sig, digest)
    }

    /// Whether the recoverable `signature` is a valid low-S signature by this key over `digest` (v is not needed).
    public func isValidSignature(_ signature: Secp256k1.RecoverableSignature, digest: some ContiguousBytes) -> Bool {
        isValidSignature(compact: signature.compact, digest: digest)
    }

    /// Whether a DER-encoded ECDSA signature is a valid low-S signature by this key over the 32-byte `digest`.
    ///
    /// Strict DER as libsecp256k1 parses it; for Bitcoin-style (non-malleable) verification.
    public func isValidSignature(der signature: some ContiguousBytes, digest: some ContiguousBytes) -> Bool {
        let der = signature.withUnsafeBytes { Array($0) }
        let ctx = Secp256k1.Context.shared.pointer
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_der(ctx, &sig, der, der.count) == 1 else { return false }
        return verify(&sig, digest)
    }

    private func verify(_ sig: inout secp256k1_ecdsa_signature, _ digest: some ContiguousBytes) -> Bool {
        let hash = digest.withUnsafeBytes { Array($0) }
        guard hash.count == 32 else { return false }
        return withParsed { pubkey in
            secp256k1_ecdsa_verify(Secp256k1.Context.shared.pointer, &sig, hash, &pubkey) == 1
        }
    }
}
