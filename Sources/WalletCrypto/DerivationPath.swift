/// A BIP-32 derivation path: `m` and up to 255 child steps, each normal (`0`) or hardened (`0'`, `0h`,
/// `0H`), as in `m/44'/60'/0'/0/5`.
///
/// Paths are not secret: errors quote them. `description` writes hardened steps with `'`.
/// See <https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#the-key-tree>.
public struct DerivationPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path: an index below 2^31 and whether it is hardened.
    public struct Component: Sendable, Hashable, CustomStringConvertible {
        /// The index without the hardened bit, in 0..<2^31.
        public let index: UInt32
        /// Whether the step is hardened (child number index + 2^31).
        public let isHardened: Bool

        /// A step; `index` must be below 2^31.
        public init(_ index: UInt32, hardened: Bool) {
            precondition(index < DerivationPath.hardenedOffset, "a BIP-32 index is below 2^31")
            self.index = index
            isHardened = hardened
        }

        /// The BIP-32 child number `i`: the index, plus 2^31 when hardened.
        public var childNumber: UInt32 { isHardened ? index | DerivationPath.hardenedOffset : index }

        public var description: String { isHardened ? "\(index)'" : "\(index)" }
    }

    /// 2^31: child numbers from here on are hardened.
    public static let hardenedOffset: UInt32 = 0x8000_0000

    /// The steps from the master key, in order.
    public let components: [Component]

    /// A path of `components` (at most 255, the depth an extended key can record).
    public init(_ components: [Component]) {
        precondition(components.count <= 255, "a BIP-32 path has at most 255 steps")
        self.components = components
    }

    /// Parses `m/44'/60'/0'/0/5`: `m`, then `/`-separated decimal indices below 2^31, each optionally
    /// followed by `'`, `h` or `H` for hardened. Spaces around the text are ignored.
    ///
    /// - Throws: `CryptoError.invalidParameter` naming the path and the step that is wrong.
    public init(parsing text: some StringProtocol) throws(CryptoError) {
        let trimmed = text.trimmingASCIIWhitespace()
        var parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.first == "m" || parts.first == "M" else {
            throw CryptoError(
                .invalidParameter, "derivation path '\(trimmed)' must start with m (as in m/44'/60'/0'/0/0)")
        }
        parts.removeFirst()
        guard parts.count <= 255 else {
            throw CryptoError(.invalidParameter, "derivation path '\(trimmed)' has \(parts.count) steps; at most 255")
        }
        var components: [Component] = []
        components.reserveCapacity(parts.count)
        for (position, part) in parts.enumerated() {
            var digits = Substring(part)
            var hardened = false
            if let last = digits.last, last == "'" || last == "h" || last == "H" {
                hardened = true
                digits = digits.dropLast()
            }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let index = UInt32(digits), index < Self.hardenedOffset
            else {
                throw CryptoError(
                    .invalidParameter,
                    "derivation path '\(trimmed)': step \(position + 1) ('\(part)') is not an index below 2^31 "
                        + "with an optional ' or h for hardened")
            }
            components.append(Component(index, hardened: hardened))
        }
        self.init(components)
    }

    /// `m/44'/60'/0'/0/5`.
    public var description: String { (["m"] + components.map(\.description)).joined(separator: "/") }

    /// This path with `component` appended.
    public func appending(_ component: Component) -> DerivationPath { DerivationPath(components + [component]) }
}

extension StringProtocol {
    /// The text without ASCII spaces, tabs and line breaks around it.
    fileprivate func trimmingASCIIWhitespace() -> String {
        let bytes = Array(utf8)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
            let end = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}
