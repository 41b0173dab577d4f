import Foundation

/// The keys and sequence number shared by a sender and a recipient (RFC 9180 sections 5.1 and 5.2).
final class HPKEContext {
    let suite: HPKE.Suite
    /// The suite's AEAD keyed for this context; nil for the export-only AEAD.
    private let aead: AEADContext?
    private let baseNonce: [UInt8]
    private let exporterSecret: SecretBytes
    private(set) var sequenceNumber: UInt64 = 0

    /// KeyScheduleS/R in base mode: psk and psk_id are empty.
    init(suite: HPKE.Suite, sharedSecret: SecretBytes, info: [UInt8]) throws {
        let kdf = HPKELabeledKDF(suiteIdentifier: suite.identifier)
        let empty = SecretBytes([])
        let pskIDHash = kdf.extract(salt: [], label: "psk_id_hash", ikm: empty).unsafeCopy()
        let infoHash = kdf.extract(salt: [], label: "info_hash", ikm: SecretBytes(info)).unsafeCopy()
        let context = [0x00] + pskIDHash + infoHash  // mode_base
        let secret = kdf.extract(salt: sharedSecret.unsafeCopy(), label: "secret", ikm: empty)
        self.suite = suite
        exporterSecret = try kdf.expand(prk: secret, label: "exp", info: context, length: 32)
        switch suite.aead {
        case .exportOnly:
            aead = nil
            baseNonce = []
        case .aes128GCM, .aes256GCM, .chaCha20Poly1305:
            let key = try kdf.expand(prk: secret, label: "key", info: context, length: suite.aead.keySize)
            baseNonce = try kdf.expand(prk: secret, label: "base_nonce", info: context, length: 12).unsafeCopy()
            aead =
                suite.aead == .chaCha20Poly1305
                ? try ChaChaPoly.Context(key: key) : try AESGCM.Context(key: key)
        }
    }

    /// ComputeNonce(seq): base_nonce XOR I2OSP(seq, Nn).
    private func nonce(_ sequence: UInt64) -> [UInt8] {
        var nonce = baseNonce
        for i in 0..<8 { nonce[nonce.count - 1 - i] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(i))) }
        return nonce
    }

    /// Advances the sequence number; RFC 9180 forbids reusing it, so overflow is an error.
    private func increment() throws {
        guard sequenceNumber < UInt64.max else {
            throw CryptoError(.invalidParameter, "HPKE: the message limit for this context is reached")
        }
        sequenceNumber += 1
    }

    func seal(_ plaintext: some ContiguousBytes, aad: some ContiguousBytes) throws -> [UInt8] {
        let sealed = try seal(plaintext, aad: aad, sequence: sequenceNumber)
        try increment()
        return sealed
    }

    func open(_ ciphertext: some ContiguousBytes, aad: some ContiguousBytes) throws -> [UInt8] {
        let opened = try open(ciphertext, aad: aad, sequence: sequenceNumber)
        try increment()
        return opened
    }

    /// Seals with the nonce of `sequence`, leaving the context's own sequence number alone.
    func seal(_ plaintext: some ContiguousBytes, aad: some ContiguousBytes, sequence: UInt64) throws -> [UInt8] {
        guard let aead else { throw CryptoError(.invalidParameter, "HPKE: an export-only context cannot seal") }
        return try aead.seal(plaintext, nonce: nonce(sequence), authenticating: aad)
    }

    /// Opens with the nonce of `sequence`, leaving the context's own sequence number alone.
    func open(_ ciphertext: some ContiguousBytes, aad: some ContiguousBytes, sequence: UInt64) throws -> [UInt8] {
        guard let aead else { throw CryptoError(.invalidParameter, "HPKE: an export-only context cannot open") }
        return try aead.open(ciphertext, nonce: nonce(sequence), authenticating: aad)
    }

    /// Export(exporter_context, L) = LabeledExpand(exporter_secret, "sec", exporter_context, L).
    func export(context: [UInt8], length: Int) throws -> SecretBytes {
        try HPKELabeledKDF(suiteIdentifier: suite.identifier).expand(
            prk: exporterSecret, label: "sec", info: context, length: length)
    }
}

extension HPKE {
    /// The sending side of a base-mode HPKE context (RFC 9180 section 5.1.1, SetupBaseS).
    ///
    /// Send `encapsulatedKey` to the recipient with the first message. Messages must be opened in
    /// the order they were sealed. Not for concurrent use.
    public final class Sender {
        private let context: HPKEContext
        /// `enc`: the encapsulated ephemeral public key for the recipient.
        public let encapsulatedKey: [UInt8]

        /// SetupBaseS(pkR, info) with a fresh ephemeral key.
        ///
        /// - Parameters:
        ///   - suite: the KEM, KDF and AEAD.
        ///   - recipientKey: the recipient's serialized public key (65-byte point or 32-byte X25519 key).
        ///   - info: application context bound into the keys.
        /// - Throws: `CryptoError.invalidKey` when the recipient key is malformed or off the curve.
        public convenience init(suite: Suite, recipientKey: some ContiguousBytes, info: some ContiguousBytes) throws {
            let ephemeral = try suite.kem.derivePrivateKey(SecretBytes.random(count: suite.kem.privateKeySize))
            try self.init(suite: suite, recipientKey: recipientKey, info: info, ephemeral: ephemeral)
        }

        /// SetupBaseS with the ephemeral key derived from `ephemeralInputKeyMaterial` (the test
        /// vectors' `ikmE`). Deterministic, hence only for tests.
        @_spi(Testing)
        public convenience init(
            suite: Suite, recipientKey: some ContiguousBytes, info: some ContiguousBytes,
            ephemeralInputKeyMaterial: SecretBytes
        ) throws {
            let ephemeral = try suite.kem.derivePrivateKey(ephemeralInputKeyMaterial)
            try self.init(suite: suite, recipientKey: recipientKey, info: info, ephemeral: ephemeral)
        }

        private init(
            suite: Suite, recipientKey: some ContiguousBytes, info: some ContiguousBytes, ephemeral: HPKEPrivateKey
        ) throws {
            let (sharedSecret, enc) = try suite.kem.encapsulate(
                to: recipientKey.withUnsafeBytes { Array($0) }, ephemeral: ephemeral)
            context = try HPKEContext(
                suite: suite, sharedSecret: sharedSecret, info: info.withUnsafeBytes { Array($0) })
            encapsulatedKey = enc
        }

        /// The suite in use.
        public var suite: Suite { context.suite }
        /// How many messages have been sealed.
        public var sequenceNumber: UInt64 { context.sequenceNumber }

        /// Seals the next message: `ciphertext || tag`.
        ///
        /// - Throws: `CryptoError.invalidParameter` for an export-only suite.
        public func seal(_ plaintext: some ContiguousBytes, authenticating aad: some ContiguousBytes = [UInt8]())
            throws -> [UInt8]
        {
            try context.seal(plaintext, aad: aad)
        }

        /// Seals a message with the nonce of sequence number `sequence` (RFC 9180 section 5.2,
        /// ComputeNonce(seq)); the context's own counter does not move.
        ///
        /// Only for tests: a sender that sealed two messages at one sequence number would reuse an AEAD
        /// nonce, which RFC 9180 forbids. Senders seal in order with ``seal(_:authenticating:)``.
        @_spi(Testing)
        public func seal(
            _ plaintext: some ContiguousBytes, authenticating aad: some ContiguousBytes = [UInt8](),
            sequenceNumber sequence: UInt64
        ) throws -> [UInt8] {
            try context.seal(plaintext, aad: aad, sequence: sequence)
        }

        /// A secret of `length` bytes bound to this context and `context` (RFC 9180 section 5.3).
        public func export(context exporterContext: some ContiguousBytes, length: Int) throws -> SecretBytes {
            try context.export(context: exporterContext.withUnsafeBytes { Array($0) }, length: length)
        }
    }

    /// The receiving side of a base-mode HPKE context (RFC 9180 section 5.1.1, SetupBaseR).
    /// Not for concurrent use.
    public final class Recipient {
        private let context: HPKEContext

        /// SetupBaseR(enc, skR, info).
        ///
        /// - Parameters:
        ///   - suite: the KEM, KDF and AEAD.
        ///   - privateKey: the recipient's serialized private key (32 bytes).
        ///   - encapsulatedKey: `enc` from the sender.
        ///   - info: the same application context as the sender's.
        /// - Throws: `CryptoError.invalidKey` when a key is malformed.
        public init(
            suite: Suite, privateKey: SecretBytes, encapsulatedKey: some ContiguousBytes, info: some ContiguousBytes
        ) throws {
            let key = try HPKEPrivateKey(suite.kem, serialized: privateKey)
            let sharedSecret = try suite.kem.decapsulate(encapsulatedKey.withUnsafeBytes { Array($0) }, recipient: key)
            context = try HPKEContext(
                suite: suite, sharedSecret: sharedSecret, info: info.withUnsafeBytes { Array($0) })
        }

        /// The suite in use.
        public var suite: Suite { context.suite }
        /// How many messages have been opened.
        public var sequenceNumber: UInt64 { context.sequenceNumber }

        /// Opens the next message.
        ///
        /// - Throws: `CryptoError.authenticationFailure` when it does not authenticate (the sequence
        ///   number then stays where it was).
        public func open(_ ciphertext: some ContiguousBytes, authenticating aad: some ContiguousBytes = [UInt8]())
            throws -> [UInt8]
        {
            try context.open(ciphertext, aad: aad)
        }

        /// Opens the message the sender sealed as its `sequence`-th (from 0), with the nonce of that
        /// sequence number (RFC 9180 section 5.2, ComputeNonce(seq)), whatever was opened before.
        ///
        /// The context's own counter does not move, so a message that fails to open does not put the
        /// others out of step, and messages may be opened in any order. Opening is not sealing: it reuses
        /// no nonce, so this is safe for any recipient.
        ///
        /// - Throws: `CryptoError.authenticationFailure` when the message does not authenticate at
        ///   `sequence` (with this context's keys and `aad`).
        public func open(
            _ ciphertext: some ContiguousBytes, authenticating aad: some ContiguousBytes = [UInt8](),
            sequenceNumber sequence: UInt64
        ) throws -> [UInt8] {
            try context.open(ciphertext, aad: aad, sequence: sequence)
        }

        /// A secret of `length` bytes bound to this context and `context` (RFC 9180 section 5.3).
        public func export(context exporterContext: some ContiguousBytes, length: Int) throws -> SecretBytes {
            try context.export(context: exporterContext.withUnsafeBytes { Array($0) }, length: length)
        }
    }
}

@available(*, unavailable)
extension HPKE.Sender: Sendable {}

@available(*, unavailable)
extension HPKE.Recipient: Sendable {}
