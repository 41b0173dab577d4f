import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct Keccak256Tests {
    /// Parses a KeccakKAT file into (bit length, message, digest) triples.
    static func katCases(_ file: String) throws -> [(bits: Int, msg: [UInt8], md: [UInt8])] {
        let text = String(decoding: try Fixtures.data("vectors/keccak_kat/\(file)"), as: UTF8.self)
        var cases: [(Int, [UInt8], [UInt8])] = []
        var bits: Int?
        var msg: [UInt8]?
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("Len = ") {
                bits = Int(line.dropFirst(6))
            } else if line.hasPrefix("Msg = ") {
                msg = Hex.decode(String(line.dropFirst(6)))
            } else if line.hasPrefix("MD = "), let b = bits, let m = msg, let md = Hex.decode(String(line.dropFirst(5)))
            {
                // Len = 0 carries Msg = 00 but means the empty message.
                cases.append((b, b == 0 ? [] : m, md))
                bits = nil
                msg = nil
            }
        }
        return cases
    }

    static func runKAT(_ file: String, expected: Int) throws {
        var tally = VectorTally(file)
        for c in try katCases(file) where c.bits % 8 == 0 {
            #expect(Keccak256.hash(c.msg) == c.md, "\(file) Len=\(c.bits)")
            // The same input through the streaming hasher, in uneven pieces.
            var hasher = Keccak256.Hasher()
            var i = 0
            var step = 1
            while i < c.msg.count {
                let end = min(c.msg.count, i + step)
                hasher.update(c.msg[i..<end])
                i = end
                step = step * 3 + 1
            }
            #expect(hasher.finalize() == c.md, "\(file) Len=\(c.bits) streamed")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == expected)
    }

    @Test func shortMessageKAT() throws {
        try Self.runKAT("ShortMsgKAT_256.txt", expected: 256)
    }

    @Test func longMessageKAT() throws {
        try Self.runKAT("LongMsgKAT_256.txt", expected: 65)
    }

    @Test func jsonVectors() throws {
        let root = try #require(try Fixtures.json("vectors/keccak256_vectors.json") as? [String: Any])
        var tally = VectorTally("keccak256_vectors.json")
        let kat = try #require(root["keccak_team_kat"] as? [String: Any])
        for group in ["boundary", "all"] {
            for entry in try #require(kat[group] as? [[String: Any]]) {
                let msg = try #require(Hex.decode(entry["msg_hex"] as! String))
                #expect(Base16.encode(Keccak256.hash(msg)) == entry["md"] as? String)
                tally.ran()
            }
        }
        for entry in try #require(root["ascii"] as? [[String: Any]]) {
            #expect(Base16.encode(Keccak256.hash(entry["text"] as! String)) == entry["md"] as? String)
            tally.ran()
        }
        let sweep = try #require(root["length_sweep"] as? [String: Any])
        for entry in try #require(sweep["entries"] as? [[String: Any]]) {
            let length = entry["len"] as! Int
            let msg = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            #expect(Base16.encode(Keccak256.hash(msg)) == entry["md"] as? String, "sweep len \(length)")
            tally.ran()
        }
        for entry in try #require(root["long"] as? [[String: Any]]) {
            let desc = entry["desc"] as! String
            guard desc == "1,000,000 x 'a'" else {
                tally.skipped()
                continue
            }
            var hasher = Keccak256.Hasher()
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
            for _ in 0..<1000 { hasher.update(chunk) }
            #expect(Base16.encode(hasher.finalize()) == entry["md"] as? String)
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 6 + 321 + 8 + 416 + 1)
    }

    /// The 1 GiB Keccak team KAT; opt in with WALLETOPS_SLOW_VECTORS=1 (minutes in a debug build).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["WALLETOPS_SLOW_VECTORS"] == "1"))
    func extremelyLongMessageKAT() throws {
        let text = String(decoding: try Fixtures.data("vectors/keccak_kat/ExtremelyLongMsgKAT_256.txt"), as: UTF8.self)
        var repeatCount: Int?
        var pattern: [UInt8]?
        var digest: [UInt8]?
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Repeat = ") { repeatCount = Int(trimmed.dropFirst(9)) }
            if trimmed.hasPrefix("Text = ") { pattern = Array(trimmed.dropFirst(7).utf8) }
            if trimmed.hasPrefix("MD = ") { digest = Hex.decode(String(trimmed.dropFirst(5))) }
        }
        let count = try #require(repeatCount)
        let chunk = try #require(pattern)
        var hasher = Keccak256.Hasher()
        // 1024 repetitions per update keep the call count low.
        let block = [UInt8](Array(repeating: chunk, count: 1024).joined())
        for _ in 0..<(count / 1024) { hasher.update(block) }
        for _ in 0..<(count % 1024) { hasher.update(chunk) }
        #expect(hasher.finalize() == (try #require(digest)))
        var tally = VectorTally("ExtremelyLongMsgKAT_256.txt")
        tally.ran()
        tally.report()
    }

    /// 135, 136 and 137 bytes straddle the 136-byte rate: padding in one byte, a whole extra block, a second block.
    @Test func rateBoundaries() throws {
        let cases = try Self.katCases("ShortMsgKAT_256.txt").filter { [1080, 1088, 1096].contains($0.bits) }
        #expect(cases.count == 3)
        for c in cases {
            #expect(c.msg.count == c.bits / 8)
            #expect(Keccak256.hash(c.msg) == c.md, "Len=\(c.bits)")
        }
    }

    @Test func emptyIsNotSHA3() {
        #expect(
            Base16.encode(Keccak256.hash([UInt8]()))
                == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
        #expect(Base16.encode(Keccak256.hash("")) != "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a")
    }

    @Test func hashIntoBufferMatchesArrayResult() {
        let msg = [UInt8](repeating: 7, count: 64)
        var out = [UInt8](repeating: 0, count: 40)
        msg.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { Keccak256.hash(bytes: input, into: $0) }
        }
        #expect(Array(out[0..<32]) == Keccak256.hash(msg))
        #expect(out[32..<40].allSatisfy { $0 == 0 })
    }
}
