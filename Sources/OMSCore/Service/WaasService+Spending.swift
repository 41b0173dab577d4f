import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let spendingMethods: [String: Method] = [
        WaasMethod.prepareEthereumTransaction.path: method { try await $0.prepareEthereumTransaction($1, $2) },
        WaasMethod.prepareEthereumContractCall.path: method { try await $0.prepareEthereumContractCall($1, $2) },
        WaasMethod.prepareSolanaTransfer.path: method { try await $0.prepareSolanaTransfer($1, $2) },
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

    // MARK: Prepare

    /// What an EVM transaction does, as far as grants are concerned.
    enum EVMIntent {
        /// `amount` wei to `to`.
        case native(to: String, amount: TokenAmount)
        /// ERC-20 `transfer(to, amount)` on `token`.
        case erc20(token: String, to: String, amount: TokenAmount)
        /// Any other call of `data` on `contract`, sending `value` wei: the owner's only, since no grant
        /// can bound what it does.
        case call(contract: String, value: TokenAmount, data: [UInt8])
    }

    /// Reads a PrepareEthereumTransaction as the schema has it (`to`, `value`, `data?`) or with the
    /// walletops extras (`token` + `amount`); `data` holding an ERC-20 transfer is read as one.
    static func intent(of request: PrepareEthereumTransactionRequest) throws(WaasError) -> EVMIntent {
        let to = try AccessRules.address(request.to, field: "to")
        if request.token != nil || request.amount != nil {
            guard let contract = request.token, let units = request.amount, request.data == nil,
                request.value == nil || request.value == "0"
            else {
                throw WaasError(
                    .invalidRequest, "send value (a native transfer) or token and amount (an ERC-20 transfer)")
            }
            let amount = try AccessRules.amount(units, field: "amount")
            guard !amount.isZero else { throw WaasError(.invalidRequest, "the amount must be above 0") }
            return .erc20(token: try AccessRules.address(contract, field: "token"), to: to, amount: amount)
        }
        let value = try AccessRules.amount(request.value ?? "0", field: "value")
        let data: [UInt8]
        do { data = try Base16.decode(request.data ?? "0x", requirePrefix: true) } catch {
            throw WaasError(.invalidRequest, "data: expected 0x-prefixed hex")
        }
        if data.isEmpty {
            guard !value.isZero else { throw WaasError(.invalidRequest, "the amount must be above 0") }
            return .native(to: to, amount: value)
        }
        if value.isZero, let transfer = ContractCall.erc20Transfer(in: data) {
            guard !transfer.amount.isZero else { throw WaasError(.invalidRequest, "the amount must be above 0") }
            return .erc20(token: to, to: transfer.to.lowercased, amount: transfer.amount)
        }
        return .call(contract: to, value: value, data: data)
    }

    /// `native` when absent; an unknown mode is UnsupportedTransactionMode.
    static func mode(_ mode: TransactionMode?) throws(WaasError) -> TransactionMode {
        let mode = mode ?? .native
        guard mode.isKnown else { throw WaasError(.unsupportedTransactionMode, "mode \(mode) is not supported") }
        return mode
    }

    /// Checks a transaction and holds it for Execute: the wallet's owner (a direct credential, no
    /// session) may send anything from its Ethereum wallet; a remote credential only within its
    /// session, alive, receiver allowed and within the limit now. It spends nothing: Execute checks
    /// again and spends, in one transaction.
    func prepareEthereumTransaction(_ call: Call, _ request: PrepareEthereumTransactionRequest) async throws
        -> PrepareResponse
    {
        let network = try AccessRules.chain(request.network, field: "network")
        return try await prepareEVM(
            call, walletId: request.walletId, network: network, sessionId: request.sessionId,
            intent: try Self.intent(of: request), mode: try Self.mode(request.mode))
    }

    /// A contract method by name and arguments; `transfer(address,uint256)` is an ERC-20 transfer of
    /// the contract's token, which a session's token grants may pay for.
    func prepareEthereumContractCall(_ call: Call, _ request: PrepareEthereumContractCallRequest) async throws
        -> PrepareResponse
    {
        let network = try AccessRules.chain(request.network, field: "network")
        let contract = try AccessRules.address(request.contract, field: "contract")
        let encoded = try ContractCall(method: request.method, args: request.args ?? [])
        let intent: EVMIntent
        if let transfer = ContractCall.erc20Transfer(in: encoded.data) {
            guard !transfer.amount.isZero else { throw WaasError(.invalidRequest, "the amount must be above 0") }
            intent = .erc20(token: contract, to: transfer.to.lowercased, amount: transfer.amount)
        } else {
            intent = .call(contract: contract, value: .zero, data: encoded.data)
        }
        return try await prepareEVM(
            call, walletId: request.walletId, network: network, sessionId: request.sessionId, intent: intent,
            mode: try Self.mode(request.mode))
    }

    private func prepareEVM(
        _ call: Call, walletId: String, network: Network, sessionId: String?, intent: EVMIntent,
        mode: TransactionMode
    ) async throws -> PrepareResponse {
        let id = Identifier.make("txn")
        return try await store.write { [self] db in
            let wallet: WalletRecord
            let session: SessionRecord?
            let credentialId: String
            switch try authenticateAny(db, call) {
            case .remote(let caller):
                guard let sessionId else {
                    throw WaasError(
                        .invalidRequest, "sessionId: a remote credential spends within a session it was granted")
                }
                let spendable = try spendableSession(db, call, caller: caller, id: sessionId, wallet: walletId)
                guard spendable.chainId == network.chainId else {
                    throw WaasError(.unsupportedNetwork, "session \(spendable.id) is on chain \(spendable.chainId)")
                }
                let (token, to, amount) = try Self.grantable(intent, session: spendable.id)
                _ = try Self.spend(
                    spendable, usage: try db.usage(session: spendable.id, chain: spendable.chainId), token: token,
                    to: to, amount: amount)
                guard let found = try db.wallet(spendable.walletId, account: spendable.accountId) else {
                    throw WaasError(.walletNotFound, "no wallet \(spendable.walletId)")
                }
                (wallet, session, credentialId) = (found, spendable, caller.id)
            case .direct(let caller):
                guard sessionId == nil else {
                    throw WaasError(
                        .invalidRequest, "sessionId: sessions are a remote credential's; the owner spends without one")
                }
                guard let found = try db.wallet(walletId, account: caller.account.id) else {
                    throw WaasError(.walletNotFound, "no wallet \(walletId) for this account")
                }
                guard found.type == .ethereum else {
                    throw WaasError(.unsupportedWalletType, "wallet \(walletId) is not an Ethereum wallet")
                }
                (wallet, session, credentialId) = (found, nil, caller.credential.id)
            }
            var transfer = TransferRecord(
                id: id, walletId: wallet.id, sessionId: session?.id ?? "", credentialId: credentialId,
                chainId: network.chainId, token: nil, to: "", amount: .zero, status: "prepared",
                expiresAt: call.now + Self.transferLifetime, mode: mode)
            switch intent {
            case .native(let to, let amount): (transfer.to, transfer.amount) = (to, amount)
            case .erc20(let token, let to, let amount):
                (transfer.token, transfer.to, transfer.amount) = (token, to, amount)
            case .call(let contract, let value, let data):
                (transfer.to, transfer.amount, transfer.callData) = (contract, value, Base16.encodePrefixed(data))
            }
            try db.insertTransfer(transfer, project: call.project.id, now: call.now)
            let isToken = transfer.token != nil
            return PrepareResponse(
                txnId: id, status: "quoted", feeOptions: Self.feeOptions(transfer, network: network),
                sponsored: mode == .relayer, expiresAt: RFC3339.format(transfer.expiresAt), from: wallet.address,
                to: transfer.to, value: isToken ? nil : transfer.amount.decimalString, token: transfer.token,
                amount: isToken ? transfer.amount.decimalString : nil, chainId: network.wireChainId)
        }
    }

    /// What a session's grants are checked against; a generic contract call matches no grant.
    static func grantable(_ intent: EVMIntent, session: String) throws(WaasError) -> (String?, String, TokenAmount) {
        switch intent {
        case .native(let to, let amount): return (nil, to, amount)
        case .erc20(let token, let to, let amount): return (token, to, amount)
        case .call:
            throw WaasError(
                .usageLimitExceeded, "no grant of session \(session) allows contract calls other than ERC-20 transfers")
        }
    }

    // MARK: Execute

    /// Executes a prepared transaction for the credential that prepared it. Within a session it
    /// re-checks the session and the limit and records the spend, the ledger entry and the signed
    /// transaction in ONE immediate transaction, so concurrent spends can never pass a limit; the
    /// owner's own are signed and recorded the same way. A refusal records nothing; executing again
    /// answers the recorded result. `feeOption`, when sent, must name the offered fee token.
    func execute(_ call: Call, _ request: ExecuteRequest) async throws -> TransactionStatusResponse {
        try await store.write { [self] db in
            let principal = try authenticateAny(db, call)
            let callerId: String
            switch principal {
            case .remote(let credential): callerId = credential.id
            case .direct(let caller): callerId = caller.credential.id
            }
            guard let transfer = try db.transfer(request.txnId, project: call.project.id),
                transfer.credentialId == callerId
            else { throw WaasError(.transactionNotFound, "no transaction \(request.txnId)") }
            if transfer.status == "executed" { return transfer.wireStatus }
            guard call.now <= transfer.expiresAt else {
                throw WaasError(.transactionExpired, "transaction \(transfer.id) was not executed in time")
            }
            if let selection = request.feeOption {
                let network = transfer.network == nil ? Network.all.first { $0.chainId == transfer.chainId } : nil
                let offered = Self.feeOptions(transfer, network: network)
                guard
                    offered.contains(where: {
                        $0.token.symbol.caseInsensitiveCompare(selection.token) == .orderedSame
                            || $0.token.contractAddress?.lowercased() == selection.token.lowercased()
                    }), selection.index.map({ offered.indices.contains($0) }) ?? true
                else { throw WaasError(.invalidFeeOption, "fee option \(selection.token) is not offered") }
            }
            var grantKey: String?
            if !transfer.sessionId.isEmpty {
                guard case .remote(let caller) = principal else {
                    throw WaasError(.transactionNotFound, "no transaction \(request.txnId)")
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
                grantKey = key
            }
            let nonce = try db.nextTransactionNonce(wallet: transfer.walletId, chain: transfer.chainId)
            let signed = try sign(transfer, nonce: nonce, db: db)
            try db.markExecuted(
                transfer.id, nonce: nonce, txHash: signed.hash, raw: signed.raw, grantKey: grantKey, now: call.now)
            return TransactionStatusResponse(
                status: "executed", txnHash: signed.hash, txnId: transfer.id, rawTransaction: signed.raw)
        }
    }

    /// Signs the transaction with the wallet's key, opened from custody for this call only: an EIP-1559
    /// envelope (hash: keccak-256, raw: 0x hex) or a Solana transfer (hash: the base58 signature, raw:
    /// base64).
    private func sign(_ transfer: TransferRecord, nonce: UInt64, db: SQLiteDatabase) throws -> (
        raw: String, hash: String
    ) {
        guard let sealed = try db.sealedKey(wallet: transfer.walletId) else {
            throw WaasError(.walletNotFound, "no key for wallet \(transfer.walletId)")
        }
        let secret = try custody.open(sealed, for: transfer.walletId)
        if transfer.network != nil {
            let key = try Ed25519.PrivateKey(seed: secret)
            let solana = SolanaTransfer(
                from: key.publicKey.rawRepresentation, to: try Base58.decode(transfer.to),
                lamports: Self.uint64(transfer.amount) ?? 0,
                recentBlockhash: SHA256.hash(data: Array("walletops-ledger:\(transfer.id)".utf8)))
            let (raw, signature) = solana.signed(with: key)
            return (Data(raw).base64EncodedString(), Base58.encode(signature))
        }
        let key = try Secp256k1.PrivateKey(secret)
        let to = try EthereumAddress(transfer.to, strict: false)
        let tx =
            if let data = transfer.callData {
                EIP1559Transaction.contractCall(
                    chainId: transfer.chainId, nonce: nonce, to: to, value: transfer.amount,
                    data: try Base16.decode(data, requirePrefix: true))
            } else if let token = transfer.token {
                EIP1559Transaction.erc20Transfer(
                    chainId: transfer.chainId, nonce: nonce, token: try EthereumAddress(token, strict: false), to: to,
                    amount: transfer.amount)
            } else {
                EIP1559Transaction.nativeTransfer(
                    chainId: transfer.chainId, nonce: nonce, to: to, value: transfer.amount)
            }
        let (raw, hash) = try tx.signed(with: key)
        return (Base16.encodePrefixed(raw), Base16.encodePrefixed(hash))
    }

    /// The state of a transaction, for the remote credential that prepared it or the wallet's owner.
    func transactionStatus(_ call: Call, _ request: TransactionStatusRequest) async throws
        -> TransactionStatusResponse
    {
        try await store.write { [self] db in
            let principal = try authenticateAny(db, call)
            let notFound = WaasError(.transactionNotFound, "no transaction \(request.txnId)")
            guard let transfer = try db.transfer(request.txnId, project: call.project.id) else {
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
    /// remains (limit - used; for a per-transfer ERC-20 limit, the limit itself). With `since` or `until`
    /// (a walletops extension), also `usedInPeriod`: the executed transfers it paid with
    /// `since <= executed at < until`.
    func getSessionUsage(_ call: Call, _ request: GetSessionUsageRequest) async throws -> GetSessionUsageResponse {
        let network = try AccessRules.chain(request.network, field: "network")
        let period = try Self.period(since: request.since, until: request.until)
        return try await store.write { [self] db in
            let principal = try authenticateAny(db, call)
            let session = try visibleSession(
                db, principal, id: request.sessionId, project: call.project.id,
                includeRevoked: request.includeRevoked == true)
            let usage = try db.usage(session: session.id, chain: network.chainId)
            let grants = try AccessRules.grants(session.grants)
            var inPeriod: [String: TokenAmount]?
            if let period {
                inPeriod = try Self.usage(
                    db.executedTransfers(
                        session: session.id, chain: network.chainId, since: period.since, until: period.until),
                    grants: grants)
            }
            let entries = grants.map { grant in
                let used = usage[grant.key] ?? .zero
                let remaining = grant.cumulative ? (grant.limit.subtracting(used) ?? .zero) : grant.limit
                return UsageEntry(
                    grant: grant.grant, used: used.decimalString, remaining: remaining.decimalString,
                    usedInPeriod: inPeriod.map { ($0[grant.key] ?? .zero).decimalString })
            }
            return GetSessionUsageResponse(entries: entries)
        }
    }

    /// `since`/`until` of GetSessionUsage as Unix seconds, either open-ended; nil when both are absent.
    static func period(since: String?, until: String?) throws(WaasError) -> (since: Int64, until: Int64)? {
        guard since != nil || until != nil else { return nil }
        func time(_ text: String?, field: String, absent: Int64) throws(WaasError) -> Int64 {
            guard let text else { return absent }
            guard let seconds = RFC3339.parse(text) else {
                throw WaasError(.invalidRequest, "\(field): expected an RFC 3339 time, got '\(text)'")
            }
            return seconds
        }
        let start = try time(since, field: "since", absent: .min)
        let end = try time(until, field: "until", absent: .max)
        guard start < end else { throw WaasError(.invalidRequest, "since must be before until") }
        return (start, end)
    }

    /// The sums per allowance key of `transfers`: each by the key recorded when it was executed, or for
    /// one executed before migration 10, by the grant that would pay for it now; the sum saturates at
    /// 2^256 - 1, which no limit passes.
    static func usage(_ transfers: [ExecutedTransfer], grants: [AccessRules.CheckedGrant]) -> [String: TokenAmount] {
        var sums: [String: TokenAmount] = [:]
        for transfer in transfers {
            guard
                let key = transfer.grantKey
                    ?? AccessRules.match(grants, token: transfer.token, to: transfer.to)?.key
            else { continue }
            let sum = sums[key] ?? .zero
            sums[key] = sum.adding(transfer.amount) ?? .max
        }
        return sums
    }
}
