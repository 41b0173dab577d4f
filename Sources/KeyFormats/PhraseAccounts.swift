public import WalletCrypto

/// The accounts of one recovery phrase: the seed computed once, the steps before the index derived once,
/// then each index's key (BIP-32 for Ethereum, SLIP-10 for Solana).
public enum PhraseAccounts {
    /// One derived account: its index, its path and its key, validated for import.
    public struct Account: Sendable {
        /// The account index (the `{i}` of the path).
        public let index: UInt32
        /// The full path of this account.
        public let path: DerivationPath
        /// The key (`description` shows no byte of it).
        public let secret: ValidatedSecret
    }

    /// The keys of `indices` along `scheme` for the phrase and passphrase.
    ///
    /// - Throws: `KeyFormatError` `.invalidPath` when the scheme does not fit `type` (a layout of the
    ///   other chain, a normal step on Ed25519, which SLIP-10 does not define), `.invalidIndices` for an
    ///   index the scheme has not, `.invalidPassphrase`, `.invalidKey` when BIP-32 gives no key for an
    ///   index (probability below 2^-127).
    public static func derive(
        _ mnemonic: Mnemonic, passphrase: SecretBytes, type: KeyType, scheme: DerivationScheme, indices: [UInt32]
    ) throws(KeyFormatError) -> [Account] {
        try check(scheme, type: type)
        for index in indices { _ = try scheme.indexStep(index) }
        let seed = try Seed(mnemonic, passphrase: passphrase, type: type)
        let branch = try seed.branch(scheme)
        return try indices.map { (index) throws(KeyFormatError) in try branch.account(index) }
    }

    /// A phrase's seed for one key type, computed once; its branches derive along schemes.
    public struct Seed: Sendable {
        let seed: SecretBytes
        /// The key type the seed derives.
        public let type: KeyType

        /// The seed of `mnemonic` and `passphrase` (PBKDF2, once).
        ///
        /// - Throws: `KeyFormatError.invalidPassphrase`.
        public init(_ mnemonic: Mnemonic, passphrase: SecretBytes, type: KeyType) throws(KeyFormatError) {
            seed = try mnemonic.seed(passphrase: passphrase)
            self.type = type
        }

        /// The node of `scheme`'s steps before the index, derived once.
        ///
        /// - Throws: what ``PhraseAccounts/derive(_:passphrase:type:scheme:indices:)`` throws for the scheme.
        public func branch(_ scheme: DerivationScheme) throws(KeyFormatError) -> Branch {
            try PhraseAccounts.check(scheme, type: type)
            do {
                switch type {
                case .ethereum:
                    return Branch(
                        scheme: scheme,
                        node: .ethereum(try BIP32.ExtendedPrivateKey(seed: seed).derive(DerivationPath(scheme.prefix))))
                case .solana where scheme.layout == .solanaKeygen:
                    // No derivation: the seed's first half is the key (solana-keygen's `keypair_from_seed`).
                    return Branch(
                        scheme: scheme,
                        node: .seedHalf(
                            SecretBytes(count: 32) { out in
                                seed.withUnsafeBytes {
                                    out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<32]))
                                }
                            }))
                case .solana:
                    return Branch(
                        scheme: scheme,
                        node: .solana(try SLIP10.Ed25519Node(seed: seed).derive(DerivationPath(scheme.prefix))))
                }
            } catch {
                throw KeyFormatError(
                    .invalidKey, "the phrase's key along \(scheme) cannot be derived: \(error.message)")
            }
        }
    }

    /// A scheme's node before the index step: each account is one index step and the suffix away.
    public struct Branch: Sendable {
        enum Node: Sendable {
            case ethereum(BIP32.ExtendedPrivateKey)
            case solana(SLIP10.Ed25519Node)
            /// The `solana-keygen` layout's one key: the seed's first 32 bytes, no step.
            case seedHalf(SecretBytes)
        }
        /// The scheme the branch follows.
        public let scheme: DerivationScheme
        let node: Node

        /// The account at `index`.
        ///
        /// - Throws: `KeyFormatError.invalidIndices` for an index the scheme has not; `.invalidKey` when
        ///   BIP-32 gives no key there (probability below 2^-127).
        public func account(_ index: UInt32) throws(KeyFormatError) -> Account {
            let step = try scheme.indexStep(index)
            let path = try scheme.path(index: index)
            let suffix = DerivationPath(scheme.suffix)
            do {
                switch node {
                case .ethereum(var key):
                    if let step { key = try key.child(step) }
                    key = try key.derive(suffix)
                    return Account(
                        index: index, path: path,
                        secret: ValidatedSecret(type: .ethereum, secret: key.privateKey.secretBytes))
                case .solana(var key):
                    if let step { key = try key.child(step) }
                    key = try key.derive(suffix)
                    return Account(
                        index: index, path: path, secret: ValidatedSecret(type: .solana, secret: key.secretBytes))
                case .seedHalf(let secret):
                    return Account(index: index, path: path, secret: ValidatedSecret(type: .solana, secret: secret))
                }
            } catch {
                throw KeyFormatError(.invalidKey, "the phrase's key at \(path) cannot be derived: \(error.message)")
            }
        }
    }

    /// What a scan found: for each expected address found, the account that has it.
    public struct ScanResult: Sendable {
        /// The accounts found, in the order of the expected addresses.
        public let found: [(address: String, account: Account)]
        /// The expected addresses no path gave.
        public let missing: [String]
        /// The paths tried, for a reject's message: per scheme, the first and last path derived.
        public let tried: [String]
    }

    /// Derives along each scheme from index 0 until every address of `expected` is found or `gapLimit`
    /// indices in a row found none (a path without `{i}` is its one account), and says which account
    /// has each address (BIP-44's account discovery, with the expected addresses standing for the used
    /// ones).
    ///
    /// - Throws: the errors of ``Seed/branch(_:)`` and ``Branch/account(_:)``; `.invalidExpectedAddress`
    ///   for an expected address that is not one of `type`.
    public static func scan(
        _ seed: Seed, schemes: [DerivationScheme], expected: [String], gapLimit: Int
    ) throws(KeyFormatError) -> ScanResult {
        var remaining = expected
        var found: [(address: String, account: Account)] = []
        var tried: [String] = []
        var seen = Set<String>()
        for scheme in schemes where !remaining.isEmpty {
            let branch = try seed.branch(scheme)
            var index: UInt32 = 0
            var gap = 0
            var last: DerivationPath?
            while !remaining.isEmpty && gap < gapLimit && index < DerivationPath.hardenedOffset {
                let account = try branch.account(index)
                last = account.path
                let key = try account.secret.derived()
                var match: Int?
                for (position, candidate) in remaining.enumerated() where try Self.has(key, candidate) {
                    match = position
                    break
                }
                if let position = match {
                    if seen.insert(account.path.description).inserted { found.append((remaining[position], account)) }
                    remaining.remove(at: position)
                    gap = 0
                } else {
                    gap += 1
                }
                guard scheme.hasIndex else { break }
                index += 1
            }
            let first = try scheme.path(index: 0)
            tried.append(last.map { $0 == first ? "\(first)" : "\(first) to \($0)" } ?? "\(first)")
        }
        return ScanResult(found: found, missing: remaining, tried: tried)
    }

    /// Whether `key` has the address `expected` (KeyParser's check: any case for Ethereum, the checksum
    /// enforced when mixed).
    static func has(_ key: ParsedKey, _ expected: String) throws(KeyFormatError) -> Bool {
        do {
            try KeyParser.checkExpectedAddress(expected, of: key)
            return true
        } catch let error where error.code == .expectedAddressMismatch {
            return false
        }
    }

    /// Refuses a scheme that does not fit `type`.
    static func check(_ scheme: DerivationScheme, type: KeyType) throws(KeyFormatError) {
        if let layout = scheme.layout, layout.keyType != type {
            throw KeyFormatError(
                .invalidPath,
                "the layout \(layout.rawValue) derives \(layout.keyType) keys, but the row's type is \(type)")
        }
        if type == .solana {
            let normal =
                scheme.prefix + scheme.suffix + (scheme.indexHardened == false ? [.init(0, hardened: false)] : [])
            if let step = normal.first(where: { !$0.isHardened }) {
                let shown =
                    scheme.indexHardened == false && !(scheme.prefix + scheme.suffix).contains(step) ? "{i}" : "\(step)"
                throw KeyFormatError(
                    .invalidPath,
                    "\(scheme.templateText): Solana keys derive by SLIP-10, which has hardened steps only for Ed25519 "
                        + "(an Ed25519 secret is hashed into its scalar, so no child follows from a public key); "
                        + "step \(shown) must be hardened (\(shown)')")
            }
        }
    }
}
