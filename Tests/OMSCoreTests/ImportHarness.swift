import Foundation
import OMSCore
import OMSProtocol
import Synchronization
import Testing
import WalletCrypto

/// A transport between client and core that records every request and may alter replies, so tests can
/// forge attestation failures and check what the client sent. It wraps any transport (in-process, or
/// `HTTPTransport` to `core serve`).
final class TamperingTransport: WaasTransport {
    typealias Tamper = @Sendable (WaasHTTPRequest, inout WaasHTTPResponse) throws -> Void
    let inner: any WaasTransport
    private let tamper = Mutex<Tamper?>(nil)
    private let sent = Mutex<[WaasHTTPRequest]>([])

    init(inner: any WaasTransport) { self.inner = inner }

    func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
        sent.withLock { $0.append(request) }
        var response = try await inner.send(request)
        if let tamper = tamper.withLock({ $0 }) { try tamper(request, &response) }
        return response
    }

    /// Alters every later successful reply to one of `methods`.
    func tamper(
        _ methods: Set<WaasMethod> = Attestation.attestedMethods,
        _ body: @escaping @Sendable (WaasHTTPRequest, inout WaasHTTPResponse) throws -> Void
    ) {
        let paths = Set(methods.map(\.path))
        tamper.withLock {
            $0 = { request, response in
                guard paths.contains(request.path), response.status == 200 else { return }
                try body(request, &response)
            }
        }
    }

    /// Replaces the attestation document of later replies to `methods`.
    func rewriteDocument(
        _ methods: Set<WaasMethod> = Attestation.attestedMethods,
        _ rewrite: @escaping @Sendable (String) throws -> String
    ) {
        tamper(methods) { _, response in
            guard let header = response.header(Attestation.documentHeader) else { return }
            response.message.setHeader(Attestation.documentHeader, try rewrite(header))
        }
    }

    /// How many requests to `method` went out.
    func count(_ method: WaasMethod) -> Int { sent.withLock { $0.filter { $0.path == method.path }.count } }
    /// Every request that went out.
    var requests: [WaasHTTPRequest] { sent.withLock { $0 } }
}

/// A core, a signed-in client, the wire between them, and the development verifier pinned to the core's
/// own attestation root.
struct ImportHarness {
    let core: CoreFixture
    let wire: TamperingTransport
    let client: WaasClient
    let root: X509Certificate

    /// - Parameter transport: how requests reach the core: embedded, or `core serve` over HTTP (the wire
    ///   then sits between the client and `HTTPTransport`, so tampering happens after the server replied).
    init(_ transport: AccessTransport = .inProcess, clock: any CoreClock = SystemClock()) async throws {
        try await self.init(clock: clock, inner: transport.connect)
    }

    /// - Parameter inner: how requests reach the core.
    init(clock: any CoreClock = SystemClock(), inner: @escaping (WaasService) throws -> any WaasTransport)
        async throws
    {
        core = try CoreFixture.connected(clock: clock) { TamperingTransport(inner: try inner($0)) }
        wire = core.transport as! TamperingTransport
        (client, _) = try await core.signIn()
        root = try await core.service.attestationRoot()
    }

    /// Development policy, the core's root pinned by SHA-256; `now` follows the core's clock.
    var verifier: AttestationVerifier { verifier(.development(root: root)) }

    func verifier(_ policy: AttestationPolicy) -> AttestationVerifier {
        let service = core.service
        return AttestationVerifier(policy: policy) { Date(timeIntervalSince1970: TimeInterval(service.now)) }
    }

    /// The caller's wallets, as the core holds them (every page).
    func wallets(_ client: WaasClient? = nil) async throws -> [Wallet] {
        var wallets: [Wallet] = []
        var page: Page?
        repeat {
            let reply = try await (client ?? self.client).call(
                .listWallets, ListWalletsRequest(page: page), as: ListWalletsResponse.self)
            wallets += reply.wallets
            page = reply.page.flatMap { $0.cursor?.isEmpty == false ? Page(limit: 100, cursor: $0.cursor) : nil }
        } while page != nil
        return wallets
    }

    /// An ImportWallet request sealed by hand, so tests can bend one part of it.
    func sealedRequest(
        _ key: SecretBytes, keyId: String, publicKey: [UInt8], suite: ImportSuite, networkFamily: NetworkFamily,
        reference: String? = nil, sealedFor: (NetworkFamily, String?)? = nil
    ) throws -> ImportWalletRequest {
        let sender = try HPKE.Sender(
            suite: suite.hpke, recipientKey: publicKey, info: ImportBinding.info(keyId: keyId))
        let binding = sealedFor ?? (networkFamily, reference)
        let ciphertext = try key.withUnsafeBytes {
            try sender.seal($0, authenticating: ImportBinding.aad(networkFamily: binding.0, reference: binding.1))
        }
        return ImportWalletRequest(
            networkFamily: networkFamily, reference: reference,
            keyMaterial: KeyMaterial(
                keyId: keyId, suite: suite.rawValue, encapsulatedKey: CanonicalBase64.encode(sender.encapsulatedKey),
                ciphertext: CanonicalBase64.encode(ciphertext)))
    }

    /// Stops the served core (over HTTP) and removes the home.
    func remove() { core.removeServed() }
}

/// Expects `body` to fail with a service error of `code`.
func expectWaasError(
    _ code: WaasErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
    } catch let error as WaasError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// A forged enclave: its own P-384 chain, re-signing documents with chosen changes.
struct TestEnclave: Sendable {
    let root: X509Certificate
    let intermediate: X509Certificate
    let leaf: X509Certificate
    let leafKey: P384.Signing.PrivateKey

    /// The payload fields a test may change.
    struct Fields {
        var moduleID: String
        var timestamp: UInt64
        var pcrs: [Int: [UInt8]]
        var publicKey: [UInt8]?
        var userData: [UInt8]?
        var nonce: [UInt8]?
    }

    init(leafNotBefore: Date = Date() - 3_600, leafNotAfter: Date = Date() + 3_600) throws {
        let rootKey = try P384.Signing.PrivateKey()
        let intermediateKey = try P384.Signing.PrivateKey()
        leafKey = try P384.Signing.PrivateKey()
        let start = Date() - 86_400
        let end = Date() + 86_400
        root = try X509Builder(
            subject: [("CN", "test root")], subjectKey: .p384(rootKey.publicKey), notBefore: start, notAfter: end,
            isCA: true
        ).selfSigned(with: .p384(rootKey))
        intermediate = try X509Builder(
            subject: [("CN", "test intermediate")], subjectKey: .p384(intermediateKey.publicKey), notBefore: start,
            notAfter: end, isCA: true
        ).issued(by: root, issuerKey: .p384(rootKey))
        leaf = try X509Builder(
            subject: [("CN", "test leaf")], subjectKey: .p384(leafKey.publicKey), notBefore: leafNotBefore,
            notAfter: leafNotAfter
        ).issued(by: intermediate, issuerKey: .p384(intermediateKey))
    }

    var policy: AttestationPolicy { .development(root: root) }

    static func fields(of header: String) throws -> Fields {
        let message = try COSESign1(encoded: [UInt8](Data(base64Encoded: header)!))
        let document = try NitroAttestationDocument(payload: message.payload)
        return Fields(
            moduleID: document.moduleID, timestamp: document.timestamp, pcrs: document.pcrs,
            publicKey: document.publicKey, userData: document.userData, nonce: document.nonce)
    }

    /// The document of `header` with `change` applied, signed by this enclave.
    func resign(_ header: String, _ change: (inout Fields) -> Void = { _ in }) throws -> String {
        var fields = try Self.fields(of: header)
        change(&fields)
        let payload = CBOR.map([
            CBOR.MapEntry("module_id", .text(fields.moduleID)),
            CBOR.MapEntry("digest", "SHA384"),
            CBOR.MapEntry("timestamp", .unsigned(fields.timestamp)),
            CBOR.MapEntry(
                "pcrs",
                .map(fields.pcrs.sorted { $0.key < $1.key }.map { .init(.unsigned(UInt64($0.key)), .bytes($0.value)) })),
            CBOR.MapEntry("certificate", .bytes(leaf.derBytes)),
            CBOR.MapEntry("cabundle", .array([.bytes(root.derBytes), .bytes(intermediate.derBytes)])),
            CBOR.MapEntry("public_key", fields.publicKey.map { .bytes($0) } ?? .null),
            CBOR.MapEntry("user_data", fields.userData.map { .bytes($0) } ?? .null),
            CBOR.MapEntry("nonce", fields.nonce.map { .bytes($0) } ?? .null),
        ])
        return CanonicalBase64.encode(try COSESign1.sign(payload: payload.encoded(), privateKey: leafKey).encoded())
    }
}

extension ImportHarness {
    /// An ImportWallets request sealed by hand (item i at sequence i with its batch AAD), so tests can
    /// bend one part of it.
    func sealedBatch(
        _ items: [(key: SecretBytes, family: NetworkFamily, reference: String?)], keyId: String, publicKey: [UInt8],
        suite: ImportSuite = .default
    ) throws -> ImportWalletsRequest {
        let sender = try HPKE.Sender(
            suite: suite.hpke, recipientKey: publicKey, info: ImportBinding.info(keyId: keyId))
        let wallets = try items.enumerated().map { index, item in
            let aad = ImportBinding.batchAAD(index: index, networkFamily: item.family, reference: item.reference)
            let ciphertext = try item.key.withUnsafeBytes { try sender.seal($0, authenticating: aad) }
            return ImportWalletsItem(
                networkFamily: item.family, reference: item.reference, ciphertext: CanonicalBase64.encode(ciphertext))
        }
        return ImportWalletsRequest(
            keyMaterial: BatchKeyMaterial(
                keyId: keyId, suite: suite.rawValue, encapsulatedKey: CanonicalBase64.encode(sender.encapsulatedKey)),
            wallets: wallets)
    }

    /// Sends an ImportWallets request as it is, attested and verified, and returns the raw reply.
    func send(_ request: ImportWalletsRequest, client: WaasClient? = nil) async throws -> ImportWalletsResponse {
        try await (client ?? self.client).attestedCall(
            .importWallets, body: WaasClient.encodeBody(request), as: ImportWalletsResponse.self, verifier: verifier)
    }
}
