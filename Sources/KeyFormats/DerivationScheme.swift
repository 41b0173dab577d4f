public import WalletCrypto

/// Where a recovery phrase's accounts sit: a named wallet layout, a fixed path, or a path template whose
/// one `{i}` step is the account index (`m/44'/60'/0'/0/{i}`, `m/44'/501'/{i}'/0'`).
///
/// Paths are not secret: errors quote them. See docs/jobs.md "Recovery phrases" for the layouts.
public struct DerivationScheme: Sendable, Hashable, CustomStringConvertible {
    /// The wallets' own layouts, by name.
    public enum Layout: String, Sendable, CaseIterable {
        /// MetaMask, Trust, eth-account's default: `m/44'/60'/0'/0/i`.
        case ethereum
        /// Ledger Live's Ethereum accounts: `m/44'/60'/i'/0/0`.
        case ledgerLiveEthereum = "ledger-live-ethereum"
        /// Phantom and Solflare: `m/44'/501'/i'/0'`.
        case phantom
        /// Ledger Live's Solana accounts (and `solana-keygen`'s `?key=i`): `m/44'/501'/i'`.
        case ledgerLiveSolana = "ledger-live-solana"
        /// The Solana CLI's `--derivation-path` default, `m/44'/501'`: one account, index 0 only.
        case solanaCLI = "solana-cli"
        /// `solana-keygen` without `--derivation-path`: no path at all, the Ed25519 secret is the first 32
        /// bytes of the BIP-39 seed; one account, index 0 only (its path is written `m`).
        case solanaKeygen = "solana-keygen"

        /// The layout's path template.
        public var template: String {
            switch self {
            case .ethereum: "m/44'/60'/0'/0/{i}"
            case .ledgerLiveEthereum: "m/44'/60'/{i}'/0/0"
            case .phantom: "m/44'/501'/{i}'/0'"
            case .ledgerLiveSolana: "m/44'/501'/{i}'"
            case .solanaCLI: "m/44'/501'"
            case .solanaKeygen: "m"
            }
        }

        /// The key type the layout derives.
        public var keyType: KeyType {
            switch self {
            case .ethereum, .ledgerLiveEthereum: .ethereum
            case .phantom, .ledgerLiveSolana, .solanaCLI, .solanaKeygen: .solana
            }
        }
    }

    /// The named layout, when the scheme is one.
    public let layout: Layout?
    /// The steps before the index step (or the whole path when there is no `{i}`).
    let prefix: [DerivationPath.Component]
    /// Whether the index step is hardened (`{i}'`); nil when the path has no `{i}`.
    let indexHardened: Bool?
    /// The steps after the index step.
    let suffix: [DerivationPath.Component]

    /// A named layout.
    public init(_ layout: Layout) {
        // The layouts' templates are valid by construction.
        try! self.init(template: layout.template, layout: layout)
    }

    /// A layout name (`ethereum`, `phantom`, ...), a path (`m/44'/501'`) or a template with one `{i}` step.
    ///
    /// - Throws: `KeyFormatError.invalidPath` naming the text and what is wrong.
    public init(parsing text: String) throws(KeyFormatError) {
        let trimmed = text.trimmingASCIIWhitespace()
        if let layout = Layout(rawValue: trimmed.lowercased()) {
            self.init(layout)
            return
        }
        // Only text of path characters is ever quoted: a phrase in the wrong column must not be echoed.
        guard trimmed.hasPrefix("m") || trimmed.hasPrefix("M"), trimmed.utf8.allSatisfy(Self.isPathCharacter) else {
            throw KeyFormatError(
                .invalidPath,
                "the path (\(trimmed.count) characters, not shown) is neither a layout "
                    + "(\(Layout.allCases.map(\.rawValue).joined(separator: ", "))) nor a path such as m/44'/60'/0'/0/{i}"
            )
        }
        try self.init(template: trimmed, layout: nil)
    }

    /// The characters of paths and templates: `m`, digits, `/`, hardened marks, `{i}`, spaces.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || Array("mM/'hH{}i ".utf8).contains(byte)
    }

    private init(template: String, layout: Layout?) throws(KeyFormatError) {
        let steps = template.split(separator: "/", omittingEmptySubsequences: false)
        let indexSteps = steps.indices.filter { steps[$0].hasPrefix("{i}") }
        guard indexSteps.count <= 1 else {
            throw KeyFormatError(.invalidPath, "the path template '\(template)' has more than one {i} step")
        }
        if let position = indexSteps.first {
            let rest = steps[position].dropFirst(3)
            guard rest.isEmpty || rest == "'" || rest == "h" || rest == "H" else {
                throw KeyFormatError(
                    .invalidPath, "the path template '\(template)': the index step must be {i} or {i}' (hardened)")
            }
            let before = steps[..<position].joined(separator: "/")
            let after = (["m"] + steps[(position + 1)...]).joined(separator: "/")
            prefix = try Self.components(before, of: template)
            indexHardened = !rest.isEmpty
            suffix = try Self.components(after, of: template)
        } else {
            prefix = try Self.components(template, of: template)
            indexHardened = nil
            suffix = []
        }
        guard prefix.count + suffix.count + (indexHardened == nil ? 0 : 1) <= 255 else {
            throw KeyFormatError(.invalidPath, "the path template '\(template)' has more than 255 steps")
        }
        self.layout = layout
    }

    private static func components(_ text: String, of template: String) throws(KeyFormatError)
        -> [DerivationPath.Component]
    {
        do {
            return try DerivationPath(parsing: text).components
        } catch {
            let problem = error.message.replacingOccurrences(of: "derivation path '\(text)'", with: "")
            throw KeyFormatError(
                .invalidPath, "the derivation path '\(template)' cannot be read\(problem.isEmpty ? "" : problem)")
        }
    }

    /// Whether the path has an `{i}` step (otherwise it names one account, index 0).
    public var hasIndex: Bool { indexHardened != nil }

    /// The path of account `index`.
    ///
    /// - Throws: `KeyFormatError.invalidIndices` for an index of 2^31 or more, or any index but 0 on a
    ///   path without `{i}`.
    public func path(index: UInt32) throws(KeyFormatError) -> DerivationPath {
        DerivationPath(prefix + [try indexStep(index)].compactMap { $0 } + suffix)
    }

    /// The index step of account `index` (nil for a path without `{i}`, which only index 0 has).
    func indexStep(_ index: UInt32) throws(KeyFormatError) -> DerivationPath.Component? {
        guard let indexHardened else {
            guard index == 0 else {
                throw KeyFormatError(
                    .invalidIndices,
                    "\(self) has no {i} step, so it has one account (index 0), not index \(index)"
                        + (layout == .solanaCLI || layout == .solanaKeygen
                            ? "; for m/44'/501'/i' use the layout ledger-live-solana" : ""))
            }
            return nil
        }
        guard index < DerivationPath.hardenedOffset else {
            throw KeyFormatError(.invalidIndices, "index \(index) is not below 2^31")
        }
        return DerivationPath.Component(index, hardened: indexHardened)
    }

    /// The layout's name, or the template (`m/44'/60'/0'/0/{i}`).
    public var description: String {
        if let layout { return layout.rawValue }
        return templateText
    }

    /// The template with `'` for hardened steps.
    public var templateText: String {
        var steps = ["m"] + prefix.map(\.description)
        if let indexHardened { steps.append(indexHardened ? "{i}'" : "{i}") }
        steps += suffix.map(\.description)
        return steps.joined(separator: "/")
    }
}
