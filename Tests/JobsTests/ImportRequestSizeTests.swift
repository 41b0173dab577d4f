import Foundation
import KeyFormats
import OMSProtocol
import Synchronization
import Testing
import WalletCrypto

@testable import Jobs

/// How a batch becomes ImportWallets requests: at most 4,000 keys and the byte budget each (measured on
/// the request's real JSON), and requests of 1,000 for the rest of the run once a core of an older build
/// refuses more.
@Suite struct ImportRequestSizeTests {
    static func items(_ count: Int, reference: (Int) -> String) throws -> [ImportRequestItem] {
        try (0..<count).map { n in
            let secret = try KeyParser.validate(
                SecretBytes(Array(String(format: "%064x", n + 1).utf8)), type: .ethereum, encoding: .text)
            return ImportRequestItem(secret: secret, reference: reference(n))
        }
    }

    /// The JSON a request of `chunk` would have once sealed: the same lengths, filler bytes.
    static func requestBytes(_ chunk: [ImportItem]) -> Int {
        let material = BatchKeyMaterial(
            keyId: "rk_" + String(repeating: "a", count: 26), suite: ImportSuite.default.rawValue,
            encapsulatedKey: CanonicalBase64.encode([UInt8](repeating: 4, count: 65)))
        let wallets = chunk.map {
            ImportWalletsItem(
                networkFamily: $0.networkFamily, reference: $0.reference,
                ciphertext: CanonicalBase64.encode([UInt8](repeating: 1, count: $0.privateKey.count + 16)))
        }
        return ImportWalletsRequest(keyMaterial: material, wallets: wallets).jsonBytes().count
    }

    static func imported(_ chunk: [ImportItem]) -> [ImportItemResult] {
        chunk.map {
            .imported(Wallet(id: "wal_x", address: "a", networkFamily: $0.networkFamily, keyOrigin: .imported))
        }
    }

    @Test func shortReferencesGoAsRequestsOf4000() async throws {
        let sizes = Mutex<[Int]>([])
        let replies = try await ImportTransport.importChunks(try Self.items(9000) { "legacy-\($0)" }) { chunk in
            sizes.withLock { $0.append(chunk.count) }
            return Self.imported(chunk)
        }
        #expect(replies.count == 9000)
        #expect(sizes.withLock { $0 } == [4000, 4000, 1000])
    }

    /// References that escape to several bytes each: the requests are cut by bytes, every one of them
    /// under the served core's 1 MiB body limit, the items in order.
    @Test func longEscapedReferencesAreCutByBytes() async throws {
        let references = (0..<5000).map { "r\($0)-" + String(repeating: "\u{1}\"", count: 60) }
        let sent = Mutex<[[String?]]>([])
        let replies = try await ImportTransport.importChunks(try Self.items(5000) { references[$0] }) { chunk in
            #expect(Self.requestBytes(chunk) <= (1 << 20) - 1024, "\(chunk.count) items")
            sent.withLock { $0.append(chunk.map(\.reference)) }
            return Self.imported(chunk)
        }
        #expect(replies.count == 5000)
        let chunks = sent.withLock { $0 }
        #expect(chunks.count > 2 && chunks.allSatisfy { $0.count < 4000 })
        #expect(chunks.flatMap { $0 } == references)
    }

    /// `batch` and `parallel` left at 0: 3,000-row chunks three at a time (with the one the engine's feed
    /// holds, 12,000 rows, so memory is flat from 10,000 rows up), one keystore a chunk as many at a time as
    /// the decryption pool has slots,
    /// per-user mode eight subjects at once; explicit values are kept.
    @Test func defaultsBoundTheRowsInFlight() {
        func configuration(_ format: ImportKeysAction.Format, batch: Int = 0, parallel: Int = 0)
            -> ImportKeysAction.Configuration
        {
            ImportKeysAction.Configuration(
                input: "in", format: format, type: nil, passwords: nil, output: "o", rejects: "r",
                concurrency: parallel,
                batchSize: batch)
        }
        let csv = configuration(.base58CSV)
        #expect(csv.batchSize == 3000 && csv.concurrency == 3 && csv.subjectsInParallel == 8)
        let keystores = configuration(.keystoreDirectory)
        #expect(keystores.batchSize == 1)
        #expect(keystores.concurrency == KeystoreDecryptionPool.Configuration.automatic().maxConcurrent)
        let thousand = configuration(.hexCSV, batch: 1000)
        #expect(thousand.batchSize == 1000 && thousand.concurrency == 8)
        let four = configuration(.hexCSV, batch: 4000)
        #expect(four.batchSize == 4000 && four.concurrency == 2)
        let explicit = configuration(.hexCSV, batch: 2500, parallel: 5)
        #expect(explicit.batchSize == 2500 && explicit.concurrency == 5 && explicit.subjectsInParallel == 5)
    }
}
