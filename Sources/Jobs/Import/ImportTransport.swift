import KeyFormats
import OMSProtocol

/// One key to import: the validated secret, its wallet type and reference.
struct ImportRequestItem: Sendable {
    let secret: ValidatedSecret
    let reference: String

    /// The wire network family of the secret's type.
    var networkFamily: NetworkFamily { secret.type == .ethereum ? .evm : .solana }
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
/// transient), or a transport failure that leaves the batch in doubt (sent again: the core settles
/// what was already imported).
struct ImportTransport: Sendable {
    let send: @Sendable ([ImportRequestItem]) async throws -> [ImportItemReply]

    /// One attested GetRecipientKey + ImportWallet exchange per key, in order.
    ///
    /// ImportWallet answers an existing address with `AddressAlreadyImported` and no wallet, so the
    /// transport then derives that key's address (the only derivation on this path) and looks it up in
    /// `directory` (listed again at most once per batch when it is not there).
    static func singleKey(client: WaasClient, verifier: AttestationVerifier, directory: WalletDirectory)
        -> ImportTransport
    {
        ImportTransport { items in
            var replies: [ImportItemReply] = []
            replies.reserveCapacity(items.count)
            var listed = false
            for item in items {
                do {
                    let wallet = try await StaleNonce.retrying {
                        try await client.importWallet(
                            privateKey: item.secret.secret, networkFamily: item.networkFamily,
                            reference: item.reference, verifier: verifier)
                    }
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
                } catch let error as WaasError where !(error.code.httpStatus >= 500 || error.code.httpStatus == 429) {
                    replies.append(.failed(error))
                }
            }
            return replies
        }
    }
}
