import Foundation
import WalletCrypto

/// Looks for secrets in plaintext in every file under a folder: raw bytes, lowercase hex and uppercase hex.
struct SecretScan {
    private var raw: [UInt32: [[UInt8]]] = [:]
    private var text: [UInt64: [[UInt8]]] = [:]
    private(set) var count = 0

    init(_ secrets: [[UInt8]]) {
        for secret in secrets where secret.count >= 8 {
            raw[Self.word32(secret, 0), default: []].append(secret)
            let hex = Array(Base16.encode(secret).utf8)
            for form in [hex, Array(String(decoding: hex, as: UTF8.self).uppercased().utf8)] {
                text[Self.word64(form, 0), default: []].append(form)
            }
            count += 1
        }
    }

    private static func word32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[at + $1]) }
    }
    private static func word64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 << 8 | UInt64(bytes[at + $1]) }
    }

    /// "file at offset" for every secret found; files are read whole, SQLite database, WAL and all.
    func findings(under folder: URL) throws -> [String] {
        var found: [String] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let bytes = [UInt8](try Data(contentsOf: url))
            found += findings(in: bytes).map { "\(url.lastPathComponent) at \($0)" }
        }
        return found
    }

    func findings(in bytes: [UInt8]) -> [Int] {
        var found: [Int] = []
        guard bytes.count >= 8 else { return found }
        func matches(_ candidate: [UInt8], _ at: Int) -> Bool {
            at + candidate.count <= bytes.count && bytes[at..<(at + candidate.count)].elementsEqual(candidate)
        }
        for at in 0...(bytes.count - 8) {
            if let candidates = raw[Self.word32(bytes, at)], candidates.contains(where: { matches($0, at) }) {
                found.append(at)
            }
            if let candidates = text[Self.word64(bytes, at)], candidates.contains(where: { matches($0, at) }) {
                found.append(at)
            }
        }
        return found
    }
}
