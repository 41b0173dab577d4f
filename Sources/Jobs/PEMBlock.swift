import Foundation
import WalletCrypto

/// The DER bytes of one PEM block (RFC 7468), for key files: the text is never echoed in errors.
enum PEMBlock {
    /// The base64 body between `-----BEGIN <label>-----` and `-----END <label>-----`, decoded into a
    /// wiped-on-release buffer.
    ///
    /// - Throws: `JobsError.invalidInput` naming `source` and the label expected.
    static func decode(_ pem: [UInt8], label: String, source: String) throws -> SecretBytes {
        let begin = Array("-----BEGIN \(label)-----".utf8)
        let end = Array("-----END \(label)-----".utf8)
        guard let start = range(of: begin, in: pem[...]), let stop = range(of: end, in: pem[start.upperBound...])
        else {
            throw JobsError(
                .invalidInput, "\(source) holds no PEM block '\(label)' (PKCS#8: openssl genpkey writes one)")
        }
        var body = pem[start.upperBound..<stop.lowerBound].filter { !($0 == 0x20 || (0x09...0x0D).contains($0)) }
        defer { for index in body.indices { body[index] = 0 } }
        guard var data = Data(base64Encoded: Data(body)) else {
            throw JobsError(.invalidInput, "\(source): the PEM block '\(label)' is not valid base64")
        }
        defer { data.resetBytes(in: 0..<data.count) }
        return SecretBytes(count: data.count) { buffer in buffer.copyBytes(from: data) }
    }

    static func range(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Range<Int>? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index..<(index + needle.count)
            }
            index += 1
        }
        return nil
    }
}
