import Foundation

/// Converts ECDSA signatures between the raw `r || s` form (JOSE, RFC 7518 section 3.4; COSE;
/// IEEE P1363) and the DER `ECDSA-Sig-Value` form (RFC 3279 section 2.2.3) that X.509 and OpenSSL use.
public enum ECDSASignatureFormat {
    /// DER `SEQUENCE { INTEGER r, INTEGER s }` from `r || s`, each `scalarSize` bytes big-endian.
    ///
    /// - Throws: `CryptoError.invalidSignature` when `raw` is not exactly `2 * scalarSize` bytes.
    public static func der(fromRaw raw: some ContiguousBytes, scalarSize: Int) throws -> [UInt8] {
        let bytes = raw.withUnsafeBytes { Array($0) }
        guard scalarSize > 0, bytes.count == 2 * scalarSize else {
            throw CryptoError(
                .invalidSignature, "ECDSA raw signature: expected \(2 * scalarSize) bytes, got \(bytes.count)")
        }
        let r = derInteger(bytes[0..<scalarSize])
        let s = derInteger(bytes[scalarSize...])
        var out: [UInt8] = [0x30]
        appendLength(r.count + s.count, to: &out)
        out += r
        out += s
        return out
    }

    /// `r || s`, each left-padded to `scalarSize` bytes, from a strict DER `ECDSA-Sig-Value`.
    ///
    /// Rejects BER variants (long-form lengths where short form fits, non-minimal or negative
    /// integers) and trailing bytes, so one signature has one encoding.
    /// - Throws: `CryptoError.invalidSignature` when the DER is malformed or an integer is too large.
    public static func raw(fromDER der: some ContiguousBytes, scalarSize: Int) throws -> [UInt8] {
        let bytes = der.withUnsafeBytes { Array($0) }
        var reader = DERReader(bytes: bytes)
        guard reader.next() == 0x30, let bodyLength = reader.length(), bodyLength == reader.remaining else {
            throw CryptoError(.invalidSignature, "ECDSA DER signature: not a single SEQUENCE")
        }
        var out: [UInt8] = []
        out.reserveCapacity(2 * scalarSize)
        for name in ["r", "s"] {
            guard reader.next() == 0x02, let length = reader.length(), length > 0, length <= reader.remaining else {
                throw CryptoError(.invalidSignature, "ECDSA DER signature: \(name) is not an INTEGER")
            }
            var value = Array(bytes[reader.offset..<(reader.offset + length)])
            reader.offset += length
            guard value[0] & 0x80 == 0 else {
                throw CryptoError(.invalidSignature, "ECDSA DER signature: \(name) is negative")
            }
            if value.count > 1 && value[0] == 0 {
                guard value[1] & 0x80 != 0 else {
                    throw CryptoError(.invalidSignature, "ECDSA DER signature: \(name) is not minimally encoded")
                }
                value.removeFirst()
            }
            guard value.count <= scalarSize else {
                throw CryptoError(.invalidSignature, "ECDSA DER signature: \(name) is longer than \(scalarSize) bytes")
            }
            out += [UInt8](repeating: 0, count: scalarSize - value.count) + value
        }
        guard reader.remaining == 0 else {
            throw CryptoError(.invalidSignature, "ECDSA DER signature: trailing bytes")
        }
        return out
    }

    /// A minimal DER INTEGER holding the unsigned big-endian `magnitude`.
    private static func derInteger(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(magnitude.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        var out: [UInt8] = [0x02]
        appendLength(value.count, to: &out)
        return out + value
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        if length < 0x80 {
            out.append(UInt8(length))
            return
        }
        var digits: [UInt8] = []
        var rest = length
        while rest > 0 {
            digits.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        out.append(0x80 | UInt8(digits.count))
        out += digits
    }

    /// Reads DER tags and definite, minimally encoded lengths.
    private struct DERReader {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func next() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func length() -> Int? {
            guard let first = next() else { return nil }
            if first < 0x80 { return Int(first) }
            let count = Int(first & 0x7f)
            guard count >= 1, count <= 2, count <= remaining else { return nil }
            var value = 0
            for _ in 0..<count { value = value << 8 | Int(next()!) }
            // Long form only when short form cannot hold it, with no leading zero byte.
            guard value >= 0x80, value >> (8 * (count - 1)) != 0 else { return nil }
            return value
        }
    }
}
