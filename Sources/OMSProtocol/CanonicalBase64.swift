import Foundation

/// Standard base64 (RFC 4648 section 4, with padding) as the import wire fields carry it.
///
/// Decoding is strict: the text must be exactly what encoding the decoded bytes gives back, so one
/// value has one spelling (no whitespace, no missing padding, no stray bits in the last character).
public enum CanonicalBase64 {
    /// Encodes bytes with padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Decodes canonical base64, or returns nil.
    public static func decode(_ text: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { return nil }
        return [UInt8](data)
    }
}
