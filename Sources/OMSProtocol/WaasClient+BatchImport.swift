import Foundation
import WalletCrypto

/// One key to import in a batch (`WaasClient.importWallets`).
public struct ImportItem: Sendable {
    /// The key as the service accepts it: Ethereum 32 bytes or 64 hex digits (optional `0x`), Solana a
    /// 32-byte seed or 64-byte keypair, raw or base58.
    public var privateKey: SecretBytes
    /// `evm` or `solana`.
    public var networkFamily: NetworkFamily
    /// An optional label, at most 128 UTF-8 bytes.
    public var reference: String?

    public init(privateKey: SecretBytes, networkFamily: NetworkFamily, reference: String? = nil) {
        self.privateKey = privateKey
        self.networkFamily = networkFamily
        self.reference = reference
    }

    /// The bytes this item takes in an ImportWallets request (``ImportWalletsItem/encodedSize``).
    public var encodedSize: Int {
        ImportWalletsItem.encodedSize(
            keyBytes: privateKey.count, networkFamily: networkFamily, reference: reference)
    }
}

/// What became of one item of a batch, in the order the items were given.
public enum ImportItemResult: Sendable {
    /// A new wallet holds the key.
    case imported(Wallet)
    /// The address is already held by a wallet of the caller's own account (AddressAlreadyImported 7313
    /// with that wallet): a resumed import learns its wallet without deriving anything.
    case alreadyImported(Wallet)
    /// The item was refused: AddressAlreadyImported held by another account (no wallet is disclosed), a
    /// key that does not open or validate, a reference too long, an unsupported network family.
    case failed(WaasError)
}

extension WaasClient {
    /// Imports up to ``ImportWalletsRequest/maxWallets`` keys with one attested recipient key, one HPKE
    /// context and one attested `Waas/ImportWallets` reply (docs/import.md "Batched import").
    ///
    /// GetRecipientKey (attested: chain, signature, nonce, PCR0, `user_data`, `public_key`) -> one HPKE
    /// setup ([RFC 9180](https://www.rfc-editor.org/rfc/rfc9180) base mode) -> item `i` sealed as the
    /// context's message `i` with `ImportBinding.batchAAD(index: i, ...)` -> ImportWallets (attested: the
    /// document binds the whole request and reply). No key is sealed before the recipient key's
    /// attestation verified. The results are checked for count, shape and each wallet's network family.
    ///
    /// - Parameters:
    ///   - items: 0 to 4000 keys (none: nothing is sent and the result is empty) whose
    ///     ``ImportItem/encodedSize`` add up to at most ``ImportWalletsRequest/maxWalletsBytes``.
    ///   - suite: the HPKE suite (default `p256-sha256-aes256gcm`).
    ///   - verifier: the attestation checks for the service's environment.
    /// - Returns: one result per item, in order.
    /// - Throws: `WaasClientError` `.invalidArgument` (more than 4000 items or bytes, nothing sent),
    ///   `.attestationVerificationFailed` (not retryable) or `.invalidResponse`; `WaasError` for a
    ///   batch-level refusal (e.g. KeyNotFound for a used recipient key). A failure after the
    ///   ImportWallets request was sent leaves it unknown which items the core stored.
    public func importWallets(
        _ items: [ImportItem], suite: ImportSuite = .default, verifier: AttestationVerifier
    ) async throws -> [ImportItemResult] {
        let method = WaasMethod.importWallets
        guard !items.isEmpty else { return [] }
        guard items.count <= ImportWalletsRequest.maxWallets else {
            throw WaasClientError(
                .invalidArgument, method: method,
                "ImportWallets: \(items.count) keys in one batch, at most \(ImportWalletsRequest.maxWallets)")
        }
        let size = items.reduce(0) { $0 + $1.encodedSize }
        guard size <= ImportWalletsRequest.maxWalletsBytes else {
            throw WaasClientError(
                .invalidArgument, method: method,
                "ImportWallets: the \(items.count) keys take \(size) bytes, at most "
                    + "\(ImportWalletsRequest.maxWalletsBytes) per request: send them in smaller batches")
        }
        let recipient = try await recipientKey(suite: suite, verifier: verifier)
        let sender = try HPKE.Sender(
            suite: suite.hpke, recipientKey: recipient.publicKey, info: ImportBinding.info(keyId: recipient.keyId))
        var wallets: [ImportWalletsItem] = []
        wallets.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            // Sealing in order makes item i the context's message i, the sequence number the core opens it at.
            let aad = ImportBinding.batchAAD(index: index, networkFamily: item.networkFamily, reference: item.reference)
            let ciphertext = try item.privateKey.withUnsafeBytes { try sender.seal($0, authenticating: aad) }
            wallets.append(
                ImportWalletsItem(
                    networkFamily: item.networkFamily, reference: item.reference,
                    ciphertext: CanonicalBase64.encode(ciphertext)))
        }
        let request = ImportWalletsRequest(
            keyMaterial: BatchKeyMaterial(
                keyId: recipient.keyId, suite: suite.rawValue,
                encapsulatedKey: CanonicalBase64.encode(sender.encapsulatedKey)),
            wallets: wallets)
        let (reply, _) = try await attestedReply(method, body: request.jsonBytes(), verifier: verifier)
        let response: ImportWalletsResponse
        do {
            response = try ImportWalletsResponse(jsonBytes: reply.body)
        } catch {
            throw WaasClientError(
                .invalidResponse, method: method, "ImportWallets: reply does not decode: \(error)", status: reply.status
            )
        }
        return try Self.results(of: response, for: items)
    }

    /// Checks an attested ImportWallets reply against the items sent and maps it to results.
    static func results(of response: ImportWalletsResponse, for items: [ImportItem]) throws -> [ImportItemResult] {
        func invalid(_ message: String) -> WaasClientError {
            WaasClientError(.invalidResponse, method: .importWallets, "ImportWallets: \(message)", status: 200)
        }
        guard response.results.count == items.count else {
            throw invalid("\(response.results.count) results for \(items.count) keys")
        }
        // One pass by index, each result's wallet read once: a batch holds thousands of them.
        var answers: [ImportItemResult] = []
        answers.reserveCapacity(items.count)
        for index in items.indices {
            let result = response.results[index]
            let item = items[index]
            switch (result.wallet, result.error) {
            case (let wallet?, let error):
                guard wallet.networkFamily == item.networkFamily else {
                    throw invalid("result \(index) is a \(wallet.networkFamily) wallet, not \(item.networkFamily)")
                }
                if let error {
                    guard error.code == WaasErrorCode.addressAlreadyImported.code else {
                        throw invalid("result \(index) has a wallet with error \(error.code)")
                    }
                    answers.append(.alreadyImported(wallet))
                } else {
                    guard wallet.keyOrigin == .imported, wallet.reference == item.reference else {
                        throw invalid("result \(index) is not a wallet imported with this item's reference")
                    }
                    answers.append(.imported(wallet))
                }
            case (nil, let error?):
                answers.append(.failed(error.waasError))
            case (nil, nil):
                throw invalid("result \(index) has neither wallet nor error")
            }
        }
        return answers
    }
}
