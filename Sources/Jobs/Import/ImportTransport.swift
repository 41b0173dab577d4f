import KeyFormats
import OMSProtocol
import Synchronization

/// One key to import: the validated secret, its wallet type and reference.
struct ImportRequestItem: Sendable {
    let secret: ValidatedSecret
    let reference: String
    /// The user whose account receives the key (per-user mode); nil: the job's own account.
    var subject: String? = nil

    /// The wire network family of the secret's type.
    var networkFamily: NetworkFamily { NetworkFamily(secret.type) }
}

/// The core's answer for one item of a batch.
enum ImportItemReply: Sendable {
    /// A new wallet.
    case imported(Wallet)
    /// The address is already a wallet of the caller's account (this one).
    case alreadyImported(Wallet)
    /// Refused; `AddressAlreadyImported` (7313) here means held where the caller cannot see it.
    case failed(WaasError)
}

/// Sends one batch of keys to the core and answers per item, in order: the one place the import touches
/// the wire, so the single-key and the batched transports are interchangeable.
///
/// A thrown error concerns the whole batch: a service error (`WaasError`, retried by the caller when
/// transient), or a transport failure that leaves the batch in doubt (sent again: the core answers
/// the keys it already imported as `alreadyImported`).
struct ImportTransport: Sendable {
    /// Sends a batch; `requestMade` is called once per import request put on the wire (the step's
    /// `requests` work count).
    let send:
        @Sendable (_ items: [ImportRequestItem], _ requestMade: @escaping @Sendable () -> Void) async throws ->
            [ImportItemReply]

    /// A transport that sends through `send` and tells of each request it makes.
    init(
        counting send:
            @escaping @Sendable (_ items: [ImportRequestItem], _ requestMade: @escaping @Sendable () -> Void)
            async throws -> [ImportItemReply]
    ) {
        self.send = send
    }

    /// A transport whose requests are not counted (tests' fake cores).
    init(_ send: @escaping @Sendable ([ImportRequestItem]) async throws -> [ImportItemReply]) {
        self.send = { items, _ in try await send(items) }
    }

    /// One attested `Waas/ImportWallets` exchange per batch (`WaasClient.importWallets`: one recipient
    /// key, one HPKE context, one attested reply for up to 4,000 keys); a larger batch goes as several
    /// calls (``importChunks(_:limit:call:)``). The core answers a key it already holds with the holding
    /// wallet when it is the caller's (`alreadyImported`), so nothing is derived on the client.
    ///
    /// The batches in flight reach the core together: it takes a request's nonce as the request arrives,
    /// before the batch's CPU work, so batches signed in order are admitted in order and prepared at the
    /// same time (docs/import.md "Batched import"); the rare one that arrives out of order is refused
    /// before its work is used and sent again under a fresh nonce by the client.
    static func batched(client: WaasClient, verifier: AttestationVerifier) -> ImportTransport {
        ImportTransport { items, requestMade in
            try await importChunks(items) { chunk in
                requestMade()
                return try await client.importWallets(chunk, verifier: verifier)
            }
        }
    }

    /// `items` as `Waas/ImportWallets` calls (`call`, in order) of at most `limit` keys and
    /// ``ImportWalletsRequest/maxWalletsBytes`` of JSON each, answered per item. A refused call ends the
    /// batch there (its error is thrown); sent again, the keys the earlier calls imported come back as
    /// `alreadyImported`.
    static func importChunks(
        _ items: [ImportRequestItem], limit: Int = ImportWalletsRequest.maxWallets,
        call: ([ImportItem]) async throws -> [ImportItemResult]
    ) async throws -> [ImportItemReply] {
        var replies: [ImportItemReply] = []
        replies.reserveCapacity(items.count)
        var chunk: [ImportItem] = []
        chunk.reserveCapacity(min(items.count, limit))
        var chunkBytes = 0
        func flush() async throws {
            guard !chunk.isEmpty else { return }
            for result in try await call(chunk) {
                switch result {
                case .imported(let wallet): replies.append(.imported(wallet))
                case .alreadyImported(let wallet): replies.append(.alreadyImported(wallet))
                case .failed(let error): replies.append(.failed(error))
                }
            }
            chunk.removeAll(keepingCapacity: true)
            chunkBytes = 0
        }
        for item in items {
            let next = ImportItem(
                privateKey: item.secret.secret, networkFamily: item.networkFamily, reference: item.reference)
            let size = next.encodedSize
            if chunk.count == limit || chunkBytes + size > ImportWalletsRequest.maxWalletsBytes { try await flush() }
            chunk.append(next)
            chunkBytes += size
        }
        try await flush()
        return replies
    }

    /// ``batched(client:verifier:)``, or ``singleKey(client:verifier:directory:)`` for the rest of the
    /// run once the core answers that it has no `Waas/ImportWallets` (an OMS core without walletops' batch
    /// extension, which has the official schema's ImportWallet only).
    static func automatic(client: WaasClient, verifier: AttestationVerifier) -> ImportTransport {
        let batched = batched(client: client, verifier: verifier)
        let single = singleKey(client: client, verifier: verifier, directory: WalletDirectory(client: client))
        let useSingle = Mutex(false)
        return ImportTransport { items, requestMade in
            if useSingle.withLock({ $0 }) { return try await single.send(items, requestMade) }
            do {
                return try await batched.send(items, requestMade)
            } catch let error as WaasError
                where error.code == .invalidRequest && error.message.hasPrefix("unknown method")
            {
                // Refused before anything was imported: the whole batch goes one key at a time.
                useSingle.withLock { $0 = true }
                return try await single.send(items, requestMade)
            }
        }
    }

    /// One attested GetRecipientKey + ImportWallet exchange per key, in order.
    ///
    /// ImportWallet answers an existing address with `AddressAlreadyImported` and no wallet, so the
    /// transport then derives that key's address (the only derivation on this path) and looks it up in
    /// `directory` (listed again at most once per batch when it is not there).
    static func singleKey(client: WaasClient, verifier: AttestationVerifier, directory: WalletDirectory)
        -> ImportTransport
    {
        ImportTransport { items, requestMade in
            var replies: [ImportItemReply] = []
            replies.reserveCapacity(items.count)
            var listed = false
            for item in items {
                do {
                    requestMade()
                    let wallet = try await client.importWallet(
                        privateKey: item.secret.secret, networkFamily: item.networkFamily,
                        reference: item.reference, verifier: verifier)
                    replies.append(.imported(wallet))
                } catch let error as WaasError where error.code == .addressAlreadyImported {
                    guard let address = try? item.secret.derived().address else {
                        replies.append(.failed(error))
                        continue
                    }
                    var wallet = await directory.wallet(address: address)
                    if wallet == nil && !listed {
                        try await directory.refresh()
                        listed = true
                        wallet = await directory.wallet(address: address)
                    }
                    replies.append(wallet.map { .alreadyImported($0) } ?? .failed(error))
                } catch let error as WaasError
                    where !(error.code.httpStatus >= 500 || error.code.httpStatus == 429)
                    && !JobFailure.isSignInRefusal(error)
                {
                    // The key's own refusal; a refused session is the whole run's (thrown: it stops the run).
                    replies.append(.failed(error))
                }
            }
            return replies
        }
    }
}
