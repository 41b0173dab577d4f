import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let authMethods: [String: Method] = [
        WaasMethod.commitVerifier.path: method { try await $0.commitVerifier($1, $2) },
        WaasMethod.completeAuth.path: method { try await $0.completeAuth($1, $2) },
    ]

    /// Session lifetimes (OMS-REFERENCE: default 604,800 s, allowed 1...2,592,000 s).
    static let defaultLifetime = 604_800
    static let lifetimeRange = 1...2_592_000
    /// A commitment lives 10 minutes; an OTP allows 5 answers; an address gets 5 codes per 10 minutes.
    static let verifierLifetime: Int64 = 600
    static let maxOTPAttempts = 5
    static let maxOTPsPerWindow = 5

    func commitVerifier(_ call: Call, _ request: CommitVerifierRequest) async throws -> CommitVerifierResponse {
        let header = try signature(of: call)
        switch (request.identityType, request.authMode) {
        case (.oidc, .idToken):
            for field in ["iss", "aud"] where (request.metadata[field] ?? "").isEmpty {
                throw WaasError(.invalidRequest, "metadata.\(field): missing")
            }
            guard let handle = request.handle, let bytes = try? Base64URL.decode(handle), bytes.count == 32 else {
                throw WaasError(.invalidRequest, "handle must be base64url(SHA-256(idToken))")
            }
            let expiresAt = call.now + Self.verifierLifetime
            let id = Identifier.make("vrf")
            try await store.write { db in
                try db.advanceNonce(credential: header.credential, to: header.nonce)
                try db.insertVerifier(
                    id: id, project: call.project.id, credential: header.credential, request: request, challenge: "",
                    codeHash: nil, expiresAt: expiresAt)
            }
            return CommitVerifierResponse(verifier: id, challenge: "", expiresAt: RFC3339.format(expiresAt))
        case (.email, .otp):
            // The schema makes `handle` optional: the address may come in `metadata.email` instead.
            let email = (request.handle ?? request.metadata["email"] ?? "").trimmingCharacters(in: .whitespaces)
                .lowercased()
            guard email.utf8.count <= 254, email.split(separator: "@").count == 2, !email.hasPrefix("@"),
                !email.hasSuffix("@")
            else { throw WaasError(.invalidRequest, "handle (or metadata.email) is not an email address") }
            let challenge = Base64URL.encode(SecretBytes.random(count: 16).unsafeCopy())
            let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
            let answer = Self.otpAnswer(challenge: challenge, code: code)
            let expiresAt = call.now + Self.verifierLifetime
            let id = Identifier.make("vrf")
            var copy = request
            copy.handle = email
            let normalized = copy
            try await store.write { db in
                try db.advanceNonce(credential: header.credential, to: header.nonce)
                let recent =
                    try db.scalarInt(
                        "SELECT count(*) FROM verifiers WHERE project_id = ? AND handle = ? AND expires_at > ?",
                        [.text(call.project.id), .text(email), .integer(call.now)]) ?? 0
                guard recent < Self.maxOTPsPerWindow else {
                    throw WaasError(.otpRateLimited, "too many codes for this address; try again later")
                }
                try db.insertVerifier(
                    id: id, project: call.project.id, credential: header.credential, request: normalized,
                    challenge: challenge, codeHash: SHA256.hash(data: Array(answer.utf8)), expiresAt: expiresAt)
            }
            try OTPOutbox(directory: home.outboxURL).deliver(code: code, to: email, verifier: id, expiresAt: expiresAt)
            return CommitVerifierResponse(verifier: id, challenge: challenge, expiresAt: RFC3339.format(expiresAt))
        default:
            throw WaasError(
                .authMethodUnavailable, "\(request.identityType)/\(request.authMode) sign-in is not available")
        }
    }

    /// The answer the client sends for an OTP: base64url(SHA-256(challenge + code)).
    static func otpAnswer(challenge: String, code: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array((challenge + code).utf8)))
    }

    func completeAuth(_ call: Call, _ request: CompleteAuthRequest) async throws -> CompleteAuthResponse {
        let header = try signature(of: call)
        let lifetime = request.lifetime ?? Self.defaultLifetime
        guard Self.lifetimeRange.contains(lifetime) else {
            throw WaasError(.invalidRequest, "lifetime must be 1...2592000 seconds, got \(lifetime)")
        }
        // Verify an OIDC token before the transaction: its signature check is CPU work.
        // Either algorithm may sign in: the official SDK's Ethereum-key signer does (wire-samples 17-19).
        let verifier = try await store.read { db in try db.verifier(request.verifier, project: call.project.id) }
        guard let verifier else { throw WaasError(.invalidRequest, "no verifier \(request.verifier)") }
        let identity: (issuer: String, subject: String, email: String?)? =
            verifier.identityType == .oidc
            ? try await verifyIDToken(request.answer, verifier: verifier, call: call) : nil
        let email = identity?.email
        // A wrong code is answered as a failure the write returns rather than throws: a throw rolls the
        // write back, and the attempt it counts must stay counted.
        return try await store.write { [self] db -> Result<CompleteAuthResponse, WaasError> in
            try db.advanceNonce(credential: header.credential, to: header.nonce)
            let verifier = try db.verifier(request.verifier, project: call.project.id)!
            guard verifier.credential == header.credential else {
                throw WaasError(.accessError, "the verifier was committed by another credential")
            }
            guard verifier.consumedAt == nil else {
                throw WaasError(.commitmentConsumed, "the verifier was already used")
            }
            guard call.now <= verifier.expiresAt else { throw WaasError(.challengeExpired, "the verifier expired") }
            guard verifier.identityType == request.identityType, verifier.authMode == request.authMode else {
                throw WaasError(.invalidRequest, "identityType/authMode differ from the commitment")
            }
            let signedIn: (issuer: String, subject: String, email: String?)
            if let identity {
                signedIn = identity
            } else {
                // OTP: compare hashes in constant time; a wrong answer counts, and the last allowed one
                // consumes the commitment.
                let given = SHA256.hash(data: Array(request.answer.utf8))
                guard let expected = verifier.codeHash, constantTimeEquals(given, expected) else {
                    let attempts = verifier.attempts + 1
                    try db.execute(
                        "UPDATE verifiers SET attempts = ?, consumed_at = CASE WHEN ? >= ? THEN ? END WHERE id = ?",
                        [
                            .integer(Int64(attempts)), .integer(Int64(attempts)), .integer(Int64(Self.maxOTPAttempts)),
                            .integer(call.now), .text(verifier.id),
                        ])
                    guard attempts < Self.maxOTPAttempts else {
                        return .failure(WaasError(.tooManyAttempts, "the code is not correct; no attempts are left"))
                    }
                    return .failure(WaasError(.answerIncorrect, "the code is not correct"))
                }
                signedIn = (issuer + "/email", verifier.handle, verifier.handle)
            }
            try db.execute(
                "UPDATE verifiers SET consumed_at = ? WHERE id = ?", [.integer(call.now), .text(verifier.id)])
            let account = try db.upsertAccount(
                project: call.project.id, issuer: signedIn.issuer, subject: signedIn.subject,
                email: signedIn.email ?? email,
                now: call.now)
            if let existing = try db.credential(header.credential, project: call.project.id), existing.revokedAt != nil
            {
                throw WaasError(.unauthorized, "this credential was revoked; sign in with a new key")
            }
            let credential = CredentialRecord(
                id: header.credential, projectId: call.project.id, accountId: account.id, type: .direct,
                algorithm: header.algorithm.rawValue, metadataJSON: nil, createdAt: call.now,
                expiresAt: call.now + Int64(lifetime), revokedAt: nil)
            try db.insertCredential(credential)
            let page = try walletPage(db, account: account.id, page: nil)
            return .success(
                CompleteAuthResponse(
                    identity: Identity(
                        type: request.identityType, iss: signedIn.issuer, sub: signedIn.subject, email: account.email),
                    wallets: page.wallets, page: page.page, email: account.email,
                    credential: CredentialInfo(
                        credentialId: credential.id, type: .direct, expiresAt: RFC3339.format(credential.expiresAt),
                        isCaller: true)))
        }.get()
    }

    /// Checks an OIDC ID token against the commitment and the issuers the project trusts.
    private func verifyIDToken(_ token: String, verifier: VerifierRecord, call: Call) async throws
        -> (issuer: String, subject: String, email: String?)
    {
        guard Base64URL.encode(SHA256.hash(data: Array(token.utf8))) == verifier.handle else {
            throw WaasError(.answerIncorrect, "the ID token does not match the committed handle")
        }
        guard let unverified = try? JWT.decodeUnverified(token), let iss = unverified.issuer else {
            throw WaasError(.proofVerificationFailed, "the answer is not a JWT with an iss claim")
        }
        guard iss == verifier.metadata["iss"] else {
            throw WaasError(.proofVerificationFailed, "the token's iss differs from the committed metadata.iss")
        }
        let trusted = try await store.read { db in try db.trustedIssuer(project: call.project.id, issuer: iss) }
        guard !trusted.isEmpty else {
            throw WaasError(.proofVerificationFailed, "issuer \(iss) is not trusted by this project")
        }
        var lastError: JOSEError?
        for entry in trusted where entry.audience == verifier.metadata["aud"] || verifier.metadata["aud"] == nil {
            do {
                let jwt = try JWT.verifyIDToken(
                    token, keys: entry.jwks,
                    validation: JWT.Validation(
                        issuer: iss, audience: entry.audience, now: Date(timeIntervalSince1970: TimeInterval(call.now)),
                        leeway: TimeInterval(leeway)))
                guard let subject = jwt.subject, !subject.isEmpty else {
                    throw WaasError(.proofVerificationFailed, "the ID token has no sub")
                }
                let verified = jwt.claims["email_verified"]?.boolValue == true
                return (iss, subject, verified ? jwt.claims["email"]?.stringValue?.lowercased() : nil)
            } catch let error as JOSEError {
                lastError = error
            }
        }
        throw WaasError(
            .proofVerificationFailed,
            "the ID token does not verify: \(lastError?.description ?? "no trusted audience matches")")
    }
}
