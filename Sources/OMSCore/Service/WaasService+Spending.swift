import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let spendingMethods: [String: Method] = [
        WaasMethod.prepareEthereumTransaction.path: method { try await $0.prepareEthereumTransaction($1, $2) },
        WaasMethod.execute.path: method { try await $0.execute($1, $2) },
        WaasMethod.transactionStatus.path: method { try await $0.transactionStatus($1, $2) },
        WaasMethod.getSessionUsage.path: method { try await $0.getSessionUsage($1, $2) },
    ]

    /// A prepared transfer not executed within 10 minutes is void (TransactionExpired).
    static let transferLifetime: Int64 = 600

    /// The grant that pays for a transfer and the usage it would leave, or the refusal
    /// (UsageLimitExceeded): no grant allows the receiver, the limit would be passed, or the total would
    /// pass 2^256 - 1. Exact 256-bit arithmetic; nothing wraps.
    static func spend(
        _ session: SessionRecord, usage: [String: TokenAmount], token: String?, to: String, amount: TokenAmount
    ) throws -> (key: String, used: TokenAmount) {
        let grants = try AccessRules.grants(session.grants)
        guard let grant = AccessRules.match(grants, token: token, to: to) else {
            let what = token.map { "token \($0)" } ?? "native"
            throw WaasError(.usageLimitExceeded, "no grant of session \(session.id) allows \(what) transfers to \(to)")
        }
        let spent = usage[grant.key] ?? .zero
        guard let total = spent.adding(amount) else {
            throw WaasError(.usageLimitExceeded, "the usage of \(grant.key) would exceed 2^256 - 1")
        }
        if grant.cumulative {
            guard !(grant.limit < total) else {
                throw WaasError(
                    .usageLimitExceeded,
                    "sending \(amount) would use \(total) of the limit \(grant.limit) (\(spent) used)")
            }
        } else {
            guard !(grant.limit < amount) else {
                throw WaasError(.usageLimitExceeded, "sending \(amount) exceeds the per-transfer limit \(grant.limit)")
            }
        }
        return (grant.key, total)
    }

    /// The caller's own session on this wallet, unrevoked and unexpired (no leeway: a limit ends on time).
    func spendableSession(_ db: SQLiteDatabase, _ call: Call, caller: CredentialRecord, id: String, wallet: String)
        throws -> SessionRecord
    {
        guard let session = try db.session(id, project: call.project.id), session.revokedAt == nil,
            session.credentialId == caller.id, session.walletId == wallet
        else { throw WaasError(.keyNotFound, "no session \(id) of this credential on wallet \(wallet)") }
        guard call.now < session.expiresAt else {
            throw WaasError(.keyExpired, "session \(id) expired at \(RFC3339.format(session.expiresAt))")
        }
        return session
    }

    // MARK: PrepareEthereumTransaction

    /// Checks a transfer against its session (alive, receiver allowed, within the limit now) and holds it
    /// for Execute. It spends nothing: Execute checks again and spends, in one transaction.
    func prepareEthereumTransaction(_ call: Call, _ request: PrepareEthereumTransactionRequest) async throws
        -> PrepareEthereumTransactionResponse
    {
        let network = try AccessRules.chain(request.network, field: "network")
        let to = try AccessRules.address(request.to, field: "to")
        let token: String?
        let amount: TokenAmount
        switch (request.value, request.token, request.amount) {
        case (let value?, nil, nil):
            token = nil
            amount = try AccessRules.amount(value, field: "value")
        case (nil, let contract?, let units?):
            token = try AccessRules.address(contract, field: "token")
            amount = try AccessRules.amount(units, field: "amount")
        default:
            throw WaasError(.invalidRequest, "send value (a native transfer) or token and amount (an ERC-20 transfer)")
        }
        guard !amount.isZero else { throw WaasError(.invalidRequest, "the amount must be above 0") }
        guard let sessionId = request.sessionId else {
            throw WaasError(.unsupportedTransactionMode, "this core prepares transfers within a remote session only")
        }
        let id = Identifier.make("txn")
        return try await store.write { [self] db in
            let caller = try authenticateRemote(db, call)
            let session = try spendableSession(db, call, caller: caller, id: sessionId, wallet: request.walletId)
            guard session.chainId == network.chainId else {
                throw WaasError(.unsupportedNetwork, "session \(session.id) is on chain \(session.chainId)")
            }
            _ = try Self.spend(
                session, usage: try db.usage(session: session.id, chain: session.chainId), token: token, to: to,
                amount: amount)
            guard let wallet = try db.wallet(session.walletId, account: session.accountId) else {
                throw WaasError(.walletNotFound, "no wallet \(session.walletId)")
            }
            let transfer = TransferRecord(
                id: id, walletId: wallet.id, sessionId: session.id, credentialId: caller.id, chainId: network.chainId,
                token: token, to: to, amount: amount, status: "prepared", expiresAt: call.now + Self.transferLifetime)
            try db.insertTransfer(transfer, project: call.project.id, now: call.now)
            return PrepareEthereumTransactionResponse(
                transactionId: id, status: transfer.status, from: wallet.address, to: request.to,
                value: token == nil ? amount.decimalString : nil, token: request.token,
                amount: token == nil ? nil : amount.decimalString, chainId: network.wireChainId,
                expiresAt: RFC3339.format(transfer.expiresAt))
        }
    }

    // MARK: Execute

    /// Executes a prepared transfer: re-checks the session and the limit and records the spend, the ledger
    /// entry and a signed EIP-1559 transaction in ONE immediate transaction, so concurrent transfers can
    /// never overspend. A refusal records nothing. Executing again answers the recorded result.
    func execute(_ call: Call, _ request: ExecuteRequest) async throws -> TransactionStatusResponse {
        try await store.write { [self] db in
            let caller = try authenticateRemote(db, call)
            guard let transfer = try db.transfer(request.transactionId, project: call.project.id),
                transfer.credentialId == caller.id
            else { throw WaasError(.transactionNotFound, "no transaction \(request.transactionId)") }
            if transfer.status == "executed" { return transfer.wireStatus }
            guard call.now <= transfer.expiresAt else {
                throw WaasError(.transactionExpired, "transaction \(transfer.id) was not executed in time")
            }
            let session = try spendableSession(
                db, call, caller: caller, id: transfer.sessionId, wallet: transfer.walletId)
            guard session.chainId == transfer.chainId else {
                throw WaasError(.unsupportedNetwork, "session \(session.id) is now on chain \(session.chainId)")
            }
            let (key, used) = try Self.spend(
                session, usage: try db.usage(session: session.id, chain: session.chainId), token: transfer.token,
                to: transfer.to, amount: transfer.amount)
            try db.setUsage(session: session.id, chain: session.chainId, key: key, used: used)
            let nonce = try db.nextTransactionNonce(wallet: transfer.walletId, chain: transfer.chainId)
            let (raw, hash) = try sign(transfer, nonce: nonce, db: db)
            let txHash = Base16.encodePrefixed(hash)
            let rawHex = Base16.encodePrefixed(raw)
            try db.markExecuted(transfer.id, nonce: nonce, txHash: txHash, raw: rawHex, now: call.now)
            return TransactionStatusResponse(
                transactionId: transfer.id, status: "executed", txHash: txHash, rawTransaction: rawHex)
        }
    }

    /// Signs the transfer with the wallet's key, opened from custody for this call only.
    private func sign(_ transfer: TransferRecord, nonce: UInt64, db: SQLiteDatabase) throws -> (
        raw: [UInt8], hash: [UInt8]
    ) {
        guard let sealed = try db.sealedKey(wallet: transfer.walletId) else {
            throw WaasError(.walletNotFound, "no key for wallet \(transfer.walletId)")
        }
        let key = try Secp256k1.PrivateKey(try custody.open(sealed, for: transfer.walletId))
        let to = try EthereumAddress(transfer.to, strict: false)
        let tx =
            if let token = transfer.token {
                EIP1559Transaction.erc20Transfer(
                    chainId: transfer.chainId, nonce: nonce, token: try EthereumAddress(token, strict: false), to: to,
                    amount: transfer.amount)
            } else {
                EIP1559Transaction.nativeTransfer(
                    chainId: transfer.chainId, nonce: nonce, to: to, value: transfer.amount)
            }
        return try tx.signed(with: key)
    }

    /// The state of a transfer, for the remote credential that prepared it or the wallet's owner.
    func transactionStatus(_ call: Call, _ request: TransactionStatusRequest) async throws
        -> TransactionStatusResponse
    {
        try await store.write { [self] db in
            let principal = try authenticateAny(db, call)
            let notFound = WaasError(.transactionNotFound, "no transaction \(request.transactionId)")
            guard let transfer = try db.transfer(request.transactionId, project: call.project.id) else {
                throw notFound
            }
            switch principal {
            case .remote(let credential):
                guard credential.id == transfer.credentialId else { throw notFound }
            case .direct(let caller):
                guard try db.wallet(transfer.walletId, account: caller.account.id) != nil else { throw notFound }
            }
            return transfer.wireStatus
        }
    }

    // MARK: GetSessionUsage

    /// Every grant of the session with what was spent under it on `network` ("0" when nothing) and what
    /// remains (limit - used; for a per-transfer ERC-20 limit, the limit itself).
    func getSessionUsage(_ call: Call, _ request: GetSessionUsageRequest) async throws -> GetSessionUsageResponse {
        let network = try AccessRules.chain(request.network, field: "network")
        return try await store.write { [self] db in
            let principal = try authenticateAny(db, call)
            let session = try visibleSession(
                db, principal, id: request.sessionId, project: call.project.id,
                includeRevoked: request.includeRevoked == true)
            let usage = try db.usage(session: session.id, chain: network.chainId)
            let entries = try AccessRules.grants(session.grants).map { grant in
                let used = usage[grant.key] ?? .zero
                let remaining = grant.cumulative ? (grant.limit.subtracting(used) ?? .zero) : grant.limit
                return UsageEntry(grant: grant.grant, used: used.decimalString, remaining: remaining.decimalString)
            }
            return GetSessionUsageResponse(entries: entries)
        }
    }
}
