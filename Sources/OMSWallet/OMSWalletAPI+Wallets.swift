import Foundation
import OMSProtocol
import WalletCrypto

extension OMSWalletAPI {
    /// References are at most 128 UTF-8 bytes (OMS-REFERENCE "Our decisions").
    static let maxReferenceBytes = 128

    /// Every wallet of the signed-in account, following all server cursors.
    public func listWallets() async throws -> [Wallet] {
        try await perform("wallet.listWallets") { session in try await Self.allWallets(session.client) }
    }

    /// Makes one of the account's wallets the active one, keeping the session's expiry and auth metadata.
    ///
    /// - Returns: the session with that wallet active.
    @discardableResult
    public func useWallet(walletId: String) async throws -> OMSWalletActiveSession {
        let operation = "wallet.useWallet"
        guard !walletId.isEmpty else { throw OMSWalletError.validation(operation, "walletId is empty") }
        return try await perform(operation) { session in
            let reply = try await session.client.call(
                .useWallet, UseWalletRequest(walletId: walletId), as: WalletResponse.self)
            return try replaceWallet(reply.wallet, of: session, operation: operation)
        }
    }

    /// Creates a wallet for the signed-in account and makes it the active one (expiry and auth kept).
    ///
    /// - Parameters:
    ///   - walletType: `.ethereum` (default) or `.solana`.
    ///   - reference: an optional label, at most 128 UTF-8 bytes.
    @discardableResult
    public func createWallet(walletType: WalletType = .ethereum, reference: String? = nil) async throws
        -> OMSWalletActivation
    {
        let operation = "wallet.createWallet"
        guard walletType.isKnown else {
            throw OMSWalletError.validation(operation, "walletType \(walletType) is not supported")
        }
        try Self.validateReference(reference, operation: operation)
        return try await perform(operation) { session in
            let reply = try await session.client.call(
                .createWallet, CreateWalletRequest(networkFamily: walletType.networkFamily, reference: reference),
                as: WalletResponse.self)
            return OMSWalletActivation(
                wallet: reply.wallet, session: try replaceWallet(reply.wallet, of: session, operation: operation))
        }
    }

    /// Imports a private key as a new wallet and makes it the active one (expiry and auth kept).
    ///
    /// The key is checked locally, then sealed with HPKE (RFC 9180) to a recipient key whose attestation
    /// document verified (GetRecipientKey -> HPKE -> ImportWallet); the plaintext is never persisted.
    ///
    /// - Throws: `OMSWalletError` `.validationError` (malformed key or reference; nothing sent),
    ///   `.attestationVerificationFailed` (no key left the client), `.walletAddressAlreadyImported`
    ///   (the active wallet is unchanged).
    @discardableResult
    public func importWallet(privateKey: ImportedPrivateKey, reference: String? = nil) async throws
        -> OMSWalletActivation
    {
        let operation = "wallet.importWallet"
        try Self.validateReference(reference, operation: operation)
        let normalized: SecretBytes
        do {
            normalized = try privateKey.normalized()
        } catch {
            throw OMSWalletError.validation(operation, error.description)
        }
        let verifier = try await attestationVerifier(operation: operation)
        return try await perform(operation) { session in
            let wallet = try await session.client.importWallet(
                privateKey: normalized, networkFamily: privateKey.networkFamily, reference: reference,
                verifier: verifier)
            return OMSWalletActivation(
                wallet: wallet, session: try replaceWallet(wallet, of: session, operation: operation))
        }
    }

    /// The attestation checks for import replies: the configured policy, else the one the core's
    /// connection offers (an embedded core's own development root, a served core's home's root).
    private func attestationVerifier(operation: String) async throws -> AttestationVerifier {
        // Document timestamps are checked against the system clock: they come from the core's clock.
        if let policy = configuration.attestation { return AttestationVerifier(policy: policy) }
        guard let coreAttestation else {
            throw OMSWalletError(
                .attestationVerificationFailed, operation: operation,
                "no attestation policy for a remote core: set configuration.attestation")
        }
        do {
            return AttestationVerifier(policy: try await coreAttestation())
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw OMSWalletError(.attestationVerificationFailed, operation: operation, "\(error)")
        }
    }

    static func validateReference(_ reference: String?, operation: String) throws(OMSWalletError) {
        guard let reference else { return }
        guard reference.utf8.count <= maxReferenceBytes else {
            throw OMSWalletError.validation(
                operation, "reference is \(reference.utf8.count) bytes; at most \(maxReferenceBytes) UTF-8 bytes")
        }
    }
}
