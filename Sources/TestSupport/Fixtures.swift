import Foundation

/// Locates the test fixtures checked in under `Tests/Fixtures`, so the repository stands alone.
public enum Fixtures {
    /// The repository root, found from this file's path.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()

    /// `Tests/Fixtures/<relativePath>`.
    public static func url(_ relativePath: String) -> URL {
        repositoryRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relativePath)
    }

    /// The bytes of a fixture file.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// A fixture decoded as JSON into Foundation objects.
    public static func json(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(relativePath))
    }
}

/// Hex helpers for tests.
public enum Hex {
    public static func decode(_ string: String) -> [UInt8]? {
        var s = Substring(string)
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        guard s.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(s.count / 2)
        var index = s.startIndex
        while index < s.endIndex {
            let next = s.index(index, offsetBy: 2)
            guard let byte = UInt8(s[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Counts the cases a vector file ran, so a file that silently runs zero cases fails.
public struct VectorTally: Sendable {
    public let file: String
    public private(set) var ran = 0
    public private(set) var skipped = 0
    public init(_ file: String) { self.file = file }
    public mutating func ran(_ n: Int = 1) { ran += n }
    public mutating func skipped(_ n: Int = 1) { skipped += n }
    /// Prints the tally; callers assert `ran > 0` (or an exact expected count).
    public func report() { print("vectors \(file): ran \(ran), skipped \(skipped)") }
}
