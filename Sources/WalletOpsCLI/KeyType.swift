import KeyFormats

extension KeyType {
    /// The choices of a `--type` option: the raw values of KeyFormats' one key-type enum.
    static var choices: [String] { allCases.map(\.rawValue) }
}
