import Foundation
import OMSProtocol
import TestSupport
import Testing

/// Every request the official SDK sent parses into our wire types, and our encoding of it has the same
/// fields (absent ones left out), so our client's requests have the official shape.
@Suite struct WireConformanceTests {
    static func decodeAndReencode(_ method: WaasMethod, _ body: Data) throws -> Data {
        func roundTrip<T: Codable>(_ type: T.Type) throws -> Data {
            try Data(WaasClient.encodeBody(try JSONDecoder().decode(T.self, from: body)))
        }
        switch method {
        case .status, .getJWKS: return try roundTrip(Empty.self)
        case .commitVerifier: return try roundTrip(CommitVerifierRequest.self)
        case .completeAuth: return try roundTrip(CompleteAuthRequest.self)
        case .createWallet: return try roundTrip(CreateWalletRequest.self)
        case .listWallets: return try roundTrip(ListWalletsRequest.self)
        case .useWallet: return try roundTrip(UseWalletRequest.self)
        case .getIDToken: return try roundTrip(GetIDTokenRequest.self)
        case .listAccess: return try roundTrip(ListAccessRequest.self)
        case .signMessage: return try roundTrip(SignMessageRequest.self)
        case .isValidMessageSignature: return try roundTrip(IsValidMessageSignatureRequest.self)
        case .getRecipientKey: return try roundTrip(GetRecipientKeyRequest.self)
        case .importWallet: return try roundTrip(ImportWalletRequest.self)
        default: throw CocoaError(.coderInvalidValue)
        }
    }

    @Test func everyCapturedBodyParsesAndReencodesToTheSameJSON() throws {
        var tally = VectorTally("wire-samples (bodies)")
        for sample in try WireSample.all() {
            let method = try #require(WaasMethod(path: sample.path), "\(sample.file)")
            let original = Data(sample.rawBody.utf8)
            let ours = try Self.decodeAndReencode(method, original)
            let a = try JSONSerialization.jsonObject(with: original) as? NSDictionary
            let b = try JSONSerialization.jsonObject(with: ours) as? NSDictionary
            #expect(a == b, "\(sample.file): \(String(decoding: ours, as: UTF8.self))")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 19)
    }

    @Test func ourClientSendsTheOfficialHeaders() throws {
        let sample = try #require(try WireSample.all().first { $0.file.hasPrefix("16_") })
        let client = WaasClient(
            transport: InProcessTransport(handler: NoHandler()),
            publishableKey: try PublishableKey("pk_local_sdbx_abc123_secretpart"),
            signer: FixedSigner())
        let request = try client.makeRequest(
            .useWallet, body: try WaasClient.encodeBody(UseWalletRequest(walletId: "wal_1")))
        #expect(request.body == Array(sample.rawBody.utf8))
        for name in ["Content-Type", "Webrpc", "Api-Key"] {
            #expect(request.header(name) == sample.header(name), "\(name)")
        }
        let ours = try SignatureHeader(parsing: try #require(request.header(SignatureHeader.name)))
        let theirs = try SignatureHeader(parsing: try #require(sample.header(SignatureHeader.name)))
        #expect(ours.scope == theirs.scope && ours.algorithm == theirs.algorithm)
    }

    @Test func noncesStrictlyIncreaseEvenWhenTheClockStands() {
        let source = NonceSource(now: { 1_000 })
        let nonces = (0..<5).map { _ in source.next() }
        #expect(nonces == [1_000, 1_001, 1_002, 1_003, 1_004])
    }
}

private struct NoHandler: WaasRequestHandler {
    func handle(_ request: WaasHTTPRequest) async -> WaasHTTPResponse { WaasHTTPResponse(status: 500, body: []) }
}

private struct FixedSigner: RequestSigner {
    var algorithm: SignatureHeader.Algorithm { .p256 }
    var credentialId: String { "0x04" + String(repeating: "ab", count: 64) }
    func signature(forPreimage preimage: [UInt8]) throws -> String { "0x" + String(repeating: "cd", count: 64) }
}
