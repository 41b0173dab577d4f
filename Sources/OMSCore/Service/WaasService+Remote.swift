import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let remoteMethods: [String: Method] = [
        WaasMethod.registerCredential.path: method { try await $0.registerCredential($1, $2) },
        WaasMethod.revokeCredential.path: method { try await $0.revokeCredential($1, $2) },
        WaasMethod.inspectCredential.path: method { try await $0.inspectCredential($1, $2) },
        WaasMethod.authorizeRemoteAccess.path: method { try await $0.authorizeRemoteAccess($1, $2) },
        WaasMethod.getSession.path: method { try await $0.getSession($1, $2) },
        WaasMethod.listSessions.path: method { try await $0.listSessions($1, $2) },
    ]

    // MARK: Remote credentials

    /// Registers the signing Ethereum key as a remote credential (an app backend); its id is the signer's
    /// EIP-55 address and it has no account. Registering again renews a live credential's lifetime and
    /// metadata; a revoked one stays revoked.
    func registerCredential(_ call: Call, _ request: RegisterCredentialRequest) async throws
        -> RegisterCredentialResponse
    {
        let header = try signature(of: call)
        guard header.algorithm == .secp256k1EIP191 else {
            throw WaasError(.invalidRequest, "a remote credential signs with ecdsa-p256k-eip191")
        }
        let id = try Self.credentialId(of: header)
        guard AccessRules.credentialLifetime.contains(request.lifetime) else {
            throw WaasError(
                .invalidRequest,
                "lifetime must be 1...\(AccessRules.credentialLifetime.upperBound) seconds, got \(request.lifetime)")
        }
        try AccessRules.metadata(request.metadata)
        let metadata = String(decoding: try WaasClient.encodeBody(request.metadata), as: UTF8.self)
        return try await store.write { db in
            try db.advanceNonce(credential: id, to: header.nonce)
            if let existing = try db.credential(id, project: call.project.id), existing.revokedAt != nil {
                throw WaasError(.unauthorized, "this remote credential was revoked; register a new key")
            }
            try db.insertCredential(
                CredentialRecord(
                    id: id, projectId: call.project.id, accountId: nil, type: .remote,
                    algorithm: header.algorithm.rawValue, metadataJSON: metadata, createdAt: call.now,
                    expiresAt: call.now + Int64(request.lifetime), revokedAt: nil))
            return RegisterCredentialResponse(credentialId: id)
        }
    }

    /// Revokes the calling remote credential itself; every session bound to it ends with it.
    func revokeCredential(_ call: Call, _ request: RevokeCredentialRequest) async throws -> OKResponse {
        try await store.write { [self] db in
            let caller = try authenticateRemote(db, call)
            guard Self.sameCredential(caller.id, request.credentialId) else {
                throw WaasError(.keyNotFound, "a remote credential can revoke only itself")
            }
            try db.revokeCredential(caller.id, now: call.now)
            return OKResponse()
        }
    }

    /// The metadata of a live remote credential, for the owner's consent screen (public method).
    func inspectCredential(_ call: Call, _ request: InspectCredentialRequest) async throws
        -> InspectCredentialResponse
    {
        let id = try Self.remoteCredentialId(request.credentialId, field: "credentialId")
        guard request.scope == call.project.id else {
            throw WaasError(.keyNotFound, "no remote credential \(id) in scope \(request.scope)")
        }
        let credential = try await store.read { db in try db.credential(id, project: call.project.id) }
        guard let credential, credential.type == .remote, credential.revokedAt == nil,
            let json = credential.metadataJSON,
            let metadata = try? JSONDecoder().decode(CredentialMetadata.self, from: Data(json.utf8))
        else { throw WaasError(.keyNotFound, "no remote credential \(id)") }
        guard call.now <= credential.expiresAt else {
            throw WaasError(.keyExpired, "remote credential expired at \(RFC3339.format(credential.expiresAt))")
        }
        return InspectCredentialResponse(metadata: metadata)
    }

    /// A remote credential id as given by a client: an address in any case, kept in EIP-55 form.
    static func remoteCredentialId(_ text: String, field: String) throws(WaasError) -> String {
        guard let address = try? EthereumAddress(text, strict: false) else {
            throw WaasError(.invalidRequest, "\(field): expected 0x followed by 40 hex digits")
        }
        return address.checksummed
    }

    // MARK: Sessions

    /// Authorizes (or, with `sessionId`, re-authorizes) a remote credential's bounded access to one of the
    /// caller's Ethereum wallets. The expiry is capped at the remote credential's; the effective one is
    /// returned. Re-authorizing replaces the session's grants, chain and expiry in place; what was already
    /// spent under a grant with the same allowance key still counts against the new limit.
    func authorizeRemoteAccess(_ call: Call, _ request: AuthorizeRemoteAccessRequest) async throws
        -> AuthorizeRemoteAccessResponse
    {
        let credentialId = try Self.remoteCredentialId(request.credentialId, field: "credentialId")
        let checked = try AccessRules.grants(request.grants)
        let network = try AccessRules.chain(request.chainId, field: "chainId")
        let expiry = try AccessRules.utcTime(request.expiry, field: "expiry")
        return try await store.write { [self] db in
            let caller = try authenticate(db, call)
            guard expiry > call.now else {
                throw WaasError(.invalidRequest, "expiry: \(request.expiry) is not in the future")
            }
            guard let wallet = try db.wallet(request.walletId, account: caller.account.id) else {
                throw WaasError(.walletNotFound, "no wallet \(request.walletId) for this account")
            }
            guard wallet.type == .ethereum else {
                throw WaasError(
                    .unsupportedWalletType, "remote access needs an Ethereum wallet; \(wallet.id) is \(wallet.type)")
            }
            guard let remote = try db.credential(credentialId, project: call.project.id), remote.type == .remote,
                remote.revokedAt == nil
            else { throw WaasError(.keyNotFound, "no remote credential \(credentialId)") }
            guard call.now < remote.expiresAt else {
                throw WaasError(.keyExpired, "remote credential expired at \(RFC3339.format(remote.expiresAt))")
            }
            var session = SessionRecord(
                seq: 0, id: Identifier.make("ses"), accountId: caller.account.id, credentialId: remote.id,
                walletId: wallet.id, chainId: network.chainId, grants: checked.map(\.grant),
                expiresAt: min(expiry, remote.expiresAt), revokedAt: nil)
            if let sessionId = request.sessionId {
                guard let existing = try db.session(sessionId, project: call.project.id), existing.revokedAt == nil,
                    existing.credentialId == remote.id, existing.walletId == wallet.id,
                    existing.accountId == caller.account.id
                else { throw WaasError(.keyNotFound, "no session \(sessionId) of \(credentialId) on this wallet") }
                session.seq = existing.seq
                session.id = existing.id
                try db.updateSession(session)
            } else {
                session = try db.insertSession(session, now: call.now)
            }
            return AuthorizeRemoteAccessResponse(sessionId: session.id, expiry: RFC3339.format(session.expiresAt))
        }
    }

    /// A session the caller may see: a live (unrevoked) one of the wallet owner's, or the remote
    /// credential's own. With `includeRevoked` (walletops extension) the owner also sees a revoked one, for
    /// reports; a remote credential never does.
    func visibleSession(
        _ db: SQLiteDatabase, _ principal: Principal, id: String, project: String, includeRevoked: Bool = false
    ) throws -> SessionRecord {
        guard let session = try db.session(id, project: project) else {
            throw WaasError(.keyNotFound, "no session \(id)")
        }
        switch principal {
        case .direct(let caller) where caller.account.id == session.accountId:
            if session.revokedAt == nil || includeRevoked { return session }
        case .remote(let credential) where credential.id == session.credentialId:
            if session.revokedAt == nil { return session }
        default: break
        }
        throw WaasError(.keyNotFound, "no session \(id)")
    }

    func getSession(_ call: Call, _ request: GetSessionRequest) async throws -> GetSessionResponse {
        try await store.write { [self] db in
            let principal = try authenticateAny(db, call)
            return GetSessionResponse(
                session: try visibleSession(
                    db, principal, id: request.sessionId, project: call.project.id,
                    includeRevoked: request.includeRevoked == true
                ).wire)
        }
    }

    /// Unrevoked sessions: a remote credential sees only its own; an owner sees those on its wallets.
    func listSessions(_ call: Call, _ request: ListSessionsRequest) async throws -> ListSessionsResponse {
        let limit = try Self.pageSize(request.page)
        let after = try Self.position(of: request.page, kind: "s")
        return try await store.write { [self] db in
            let principal = try authenticateAny(db, call)
            if case .direct(let caller) = principal, request.includeDetails == true || request.includeRevoked == true {
                let (sessions, seqs, more) = try db.accountSessions(
                    account: caller.account.id, includeRevoked: request.includeRevoked == true, afterSeq: after,
                    limit: limit)
                var listed = sessions
                if request.includeDetails != true {
                    for index in listed.indices {
                        (listed[index].metadata, listed[index].walletAddress, listed[index].walletReference) = (
                            nil, nil, nil
                        )
                    }
                }
                let next = more ? seqs.last.map { Page(limit: limit, cursor: Self.cursor(kind: "s", after: $0)) } : nil
                return ListSessionsResponse(sessions: listed, page: next)
            }
            let (sessions, more) =
                switch principal {
                case .remote(let credential):
                    try db.sessions(credential: credential.id, account: nil, afterSeq: after, limit: limit)
                case .direct(let caller):
                    try db.sessions(credential: nil, account: caller.account.id, afterSeq: after, limit: limit)
                }
            let next =
                more ? sessions.last.map { Page(limit: limit, cursor: Self.cursor(kind: "s", after: $0.seq)) } : nil
            return ListSessionsResponse(sessions: sessions.map(\.wire), page: next)
        }
    }
}
