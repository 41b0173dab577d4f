import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    // MARK: PrepareSolanaTransfer

    /// Prepares `amount` lamports of SOL from the owner's Solana wallet to `recipient.address`.
    func prepareSolanaTransfer(_ call: Call, _ request: PrepareSolanaTransferRequest) async throws
        -> PrepareResponse
    {
        guard !request.network.isEmpty else { throw WaasError(.invalidRequest, "network: missing") }
        guard ["sol", "native"].contains(request.asset.lowercased()) else {
            throw WaasError(.unsupportedAsset, "asset \(request.asset): this core moves SOL only")
        }
        guard let recipient = try? Base58.decode(request.recipient.address), recipient.count == 32 else {
            throw WaasError(.invalidRequest, "recipient.address: expected a base58 public key of 32 bytes")
        }
        let amount = try AccessRules.amount(request.amount, field: "amount")
        guard !amount.isZero, let lamports = Self.uint64(amount) else {
            throw WaasError(.invalidRequest, "amount: lamports above 0 and below 2^64")
        }
        let mode = try Self.mode(request.mode)
        let id = Identifier.make("txn")
        return try await store.write { [self] db in
            let caller = try authenticate(db, call)
            guard let wallet = try db.wallet(request.walletId, account: caller.account.id) else {
                throw WaasError(.walletNotFound, "no wallet \(request.walletId) for this account")
            }
            guard wallet.type == .solana else {
                throw WaasError(.unsupportedWalletType, "wallet \(wallet.id) is not a Solana wallet")
            }
            let transfer = TransferRecord(
                id: id, walletId: wallet.id, sessionId: "", credentialId: caller.credential.id, chainId: 0, token: nil,
                to: Base58.encode(recipient), amount: TokenAmount(lamports), status: "prepared",
                expiresAt: call.now + Self.transferLifetime, mode: mode, network: request.network)
            try db.insertTransfer(transfer, project: call.project.id, now: call.now)
            return PrepareResponse(
                txnId: id, status: "quoted", feeOptions: Self.feeOptions(transfer, network: nil),
                sponsored: mode == .relayer, expiresAt: RFC3339.format(transfer.expiresAt), from: wallet.address,
                to: transfer.to, value: amount.decimalString)
        }
    }

    static func uint64(_ amount: TokenAmount) -> UInt64? {
        let bytes = amount.bigEndianBytes
        guard bytes.prefix(24).allSatisfy({ $0 == 0 }) else { return nil }
        return bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
