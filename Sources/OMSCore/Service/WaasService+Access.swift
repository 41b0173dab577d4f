import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let accessMethods: [String: Method] = [
        WaasMethod.listAccess.path: method { try await $0.listAccess($1, $2) },
        WaasMethod.revokeAccess.path: method { try await $0.revokeAccess($1, $2) },
    ]

    // MARK: Remote callers

    /// Who signed a request that either kind of credential may make.
    enum Principal {
        /// The owner's device credential, with its account.
        case direct(Caller)
        /// A remote credential (an app backend signing with an Ethereum key); it has no account.
        case remote(CredentialRecord)
    }

    /// The credential id a header names: the EIP-55 form of an Ethereum signer's address, so one key has
    /// one nonce sequence however its address is cased; a P-256 credential id as sent.
    static func credentialId(of header: SignatureHeader) throws(WaasError) -> String {
        guard header.algorithm == .secp256k1EIP191 else { return header.credential }
        guard let address = try? EthereumAddress(header.credential, strict: false) else {
            throw WaasError(.invalidSignature, "cred is not an Ethereum address")
        }
        return address.checksummed
    }

    /// The remote credential of a request, checked like a direct one inside the method's transaction:
    /// the nonce advances, and the credential must be registered, unrevoked and unexpired.
    func authenticateRemote(_ db: SQLiteDatabase, _ call: Call) throws -> CredentialRecord {
        let header = try signature(of: call)
        guard header.algorithm == .secp256k1EIP191 else {
            throw WaasError(.unauthorized, "this method is for a remote credential (ecdsa-p256k-eip191)")
        }
        let id = try Self.credentialId(of: header)
        try db.advanceNonce(credential: id, to: header.nonce)
        guard let credential = try db.credential(id, project: call.project.id), credential.type == .remote else {
            throw WaasError(.unauthorized, "remote credential \(id) is not registered")
        }
        guard credential.revokedAt == nil else { throw WaasError(.unauthorized, "remote credential was revoked") }
        guard call.now <= credential.expiresAt + leeway else {
            throw WaasError(.keyExpired, "remote credential expired at \(RFC3339.format(credential.expiresAt))")
        }
        return credential
    }

    /// Either kind of caller: a P-256 signer is a device credential; an Ethereum-key signer is a remote
    /// credential, unless it signed in as a direct one (the official SDK's Ethereum-key signer does,
    /// wire-samples 17-19), which is then the wallet owner's like any other.
    func authenticateAny(_ db: SQLiteDatabase, _ call: Call) throws -> Principal {
        let header = try signature(of: call)
        guard header.algorithm == .secp256k1EIP191,
            try db.credential(Self.credentialId(of: header), project: call.project.id)?.type != .direct
        else { return .direct(try authenticate(db, call)) }
        return .remote(try authenticateRemote(db, call))
    }

    // MARK: ListAccess

    /// The wallet's direct credentials (those of its account) and remote sessions, in the order they were
    /// granted. Expired grants stay listed until revoked; revoked ones appear only with `includeRevoked`
    /// (a walletops extension for the owner's reports), each with its `revokedAt`.
    func listAccess(_ call: Call, _ request: ListAccessRequest) async throws -> ListAccessResponse {
        let limit = try Self.pageSize(request.page)
        let after = try Self.position(of: request.page, kind: "a")
        if let type = request.type, !type.isKnown {
            throw WaasError(.invalidRequest, "type: expected direct or remote, got \(type)")
        }
        return try await store.write { [self] db in
            let caller = try authenticate(db, call)
            guard try db.wallet(request.walletId, account: caller.account.id) != nil else {
                throw WaasError(.walletNotFound, "no wallet \(request.walletId) for this account")
            }
            let (rows, more) = try db.accessPage(
                account: caller.account.id, wallet: request.walletId, type: request.type, afterSeq: after, limit: limit,
                includeRevoked: request.includeRevoked == true)
            let next = more ? rows.last.map { Page(limit: limit, cursor: Self.cursor(kind: "a", after: $0.seq)) } : nil
            return ListAccessResponse(credentials: rows.map { $0.wire(caller: caller.credential.id) }, page: next)
        }
    }

    // MARK: RevokeAccess

    /// Revokes a direct credential of the wallet's account (no `sessionId`) or exactly one remote session.
    ///
    /// Revocation is permanent. Revoking the caller's own credential ends the caller's session. Revoking what
    /// is already revoked answers ok for the wallet's owner (sweeps can resume); anyone else gets
    /// KeyNotFound, so a stranger learns nothing about another account's grants.
    func revokeAccess(_ call: Call, _ request: RevokeAccessRequest) async throws -> OKResponse {
        try await store.write { [self] db in
            let caller = try authenticate(db, call)
            let notFound = WaasError(.keyNotFound, "no grant of \(request.targetCredentialId) on this wallet")
            guard try db.wallet(request.walletId, account: caller.account.id) != nil else { throw notFound }
            if let sessionId = request.sessionId {
                guard let session = try db.session(sessionId, project: call.project.id),
                    session.walletId == request.walletId, session.accountId == caller.account.id,
                    Self.sameCredential(session.credentialId, request.targetCredentialId)
                else { throw notFound }
                if session.revokedAt == nil { try db.revokeSession(session.id, now: call.now) }
                return OKResponse()
            }
            guard let target = try db.credential(request.targetCredentialId, project: call.project.id) else {
                throw notFound
            }
            guard target.type == .direct else {
                if target.type == .remote {
                    throw WaasError(.invalidRequest, "sessionId: a remote grant is revoked by its sessionId")
                }
                throw notFound
            }
            guard target.accountId == caller.account.id else { throw notFound }
            if target.revokedAt == nil { try db.revokeCredential(target.id, now: call.now) }
            return OKResponse()
        }
    }

    /// Credential ids compare exactly, except Ethereum addresses, whose case carries only a checksum.
    static func sameCredential(_ stored: String, _ given: String) -> Bool {
        stored == given || (stored.hasPrefix("0x") && stored.count == 42 && stored.lowercased() == given.lowercased())
    }
}
