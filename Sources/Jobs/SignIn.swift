import Foundation
import HomeLayout
import OMSProtocol
import WalletCrypto

/// Sign-in flows of the CLI: each makes a fresh P-256 credential, runs CommitVerifier + CompleteAuth
/// with it, and returns the credential to store (OMS-REFERENCE "As the official TypeScript SDK sends it").
public enum SignIn {
    /// Signs in with an OIDC ID token: CommitVerifier `{oidc, id-token, metadata {iss, aud, exp},
    /// handle: base64url(SHA-256(token))}`, then CompleteAuth with the raw token as the answer.
    ///
    /// - Parameter lifetime: the session lifetime in seconds (the core's default, 604,800, when nil).
    public static func idToken(
        _ token: String, connection: CoreConnection, publishableKey: PublishableKey, lifetime: Int?
    ) async throws -> StoredCredential {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        let jwt: JWT
        do {
            jwt = try JWT.decodeUnverified(trimmed)
        } catch {
            throw JobsError(.invalidInput, "the ID token is not a JWT: \(error)")
        }
        guard let iss = jwt.issuer, !iss.isEmpty else { throw JobsError(.invalidInput, "the ID token has no iss") }
        let audiences = (try? jwt.audience) ?? nil
        guard let aud = audiences?.first else { throw JobsError(.invalidInput, "the ID token has no aud") }
        guard let exp = jwt.claims["exp"]?.intValue else { throw JobsError(.invalidInput, "the ID token has no exp") }
        let handle = Base64URL.encode(SHA256.hash(data: Array(trimmed.utf8)))
        return try await exchange(
            CommitVerifierRequest(
                identityType: .oidc, authMode: .idToken, metadata: ["iss": iss, "aud": aud, "exp": String(exp)],
                handle: handle),
            connection: connection, publishableKey: publishableKey, lifetime: lifetime
        ) { _ in trimmed }
    }

    /// Signs in as `email` with a token minted by the home's development issuer
    /// (`walletops login --dev`). The dev issuer's key lives in the home, so the home is needed even
    /// against a served core (which must be the core of that home).
    public static func development(
        email: String, connection: CoreConnection, publishableKey: PublishableKey, lifetime: Int?
    ) async throws -> StoredCredential {
        guard let issuer = connection.developmentIssuer else {
            throw JobsError(.noCore, "\(connection.home.url.path) has no development issuer")
        }
        let token = try await issuer.idToken(email: email)
        return try await idToken(token, connection: connection, publishableKey: publishableKey, lifetime: lifetime)
    }

    /// Signs in with an email one-time code: CommitVerifier `{email, otp, handle: email}`, then
    /// CompleteAuth with `base64url(SHA-256(challenge + code))`. `code` is asked for the code once the
    /// verifier is committed (its id is given, to find the code in a development outbox).
    public static func emailOTP(
        email: String, connection: CoreConnection, publishableKey: PublishableKey, lifetime: Int?,
        code: @Sendable (_ verifier: String) async throws -> String
    ) async throws -> StoredCredential {
        try await exchange(
            CommitVerifierRequest(identityType: .email, authMode: .otp, metadata: [:], handle: email),
            connection: connection, publishableKey: publishableKey, lifetime: lifetime
        ) { commit in
            let given = try await code(commit.verifier).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !given.isEmpty else { throw JobsError(.invalidInput, "no one-time code was given") }
            return Base64URL.encode(SHA256.hash(data: Array(((commit.challenge ?? "") + given).utf8)))
        }
    }

    /// The exchange of every flow: a fresh P-256 credential commits `request`'s verifier, and CompleteAuth
    /// sends `answer(commit)` under the same identity type and mode; the credential to store comes back.
    private static func exchange(
        _ request: CommitVerifierRequest, connection: CoreConnection, publishableKey: PublishableKey, lifetime: Int?,
        answer: (CommitVerifierResponse) async throws -> String
    ) async throws -> StoredCredential {
        let key = try P256.Signing.PrivateKey()
        let client = connection.client(publishableKey: publishableKey, signer: P256RequestSigner(key: key))
        let commit = try await client.call(.commitVerifier, request, as: CommitVerifierResponse.self)
        let response = try await client.call(
            .completeAuth,
            CompleteAuthRequest(
                identityType: request.identityType, authMode: request.authMode, verifier: commit.verifier,
                answer: try await answer(commit), lifetime: lifetime),
            as: CompleteAuthResponse.self)
        return try stored(response, key: key, connection: connection, publishableKey: publishableKey)
    }

    /// The code a development core wrote for `verifier` in `<home>/outbox/<email>.txt`.
    public static func outboxCode(home: WalletHome, email: String, verifier: String) throws -> String {
        let name =
            String(
                email.trimmingCharacters(in: .whitespaces).lowercased().map {
                    $0.isLetter || $0.isNumber || "@._-+".contains($0) ? $0 : "_"
                }) + ".txt"
        let url = home.outboxURL.appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw JobsError(.invalidInput, "no outbox file \(url.path): use --code-stdin with a served core elsewhere")
        }
        for line in text.split(separator: "\n").reversed() {
            let fields = Dictionary(
                line.split(separator: " ").compactMap { field -> (String, String)? in
                    let parts = field.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                }, uniquingKeysWith: { _, last in last })
            if fields["verifier"] == verifier, let code = fields["code"] { return code }
        }
        throw JobsError(.invalidInput, "\(url.path) holds no code for verifier \(verifier)")
    }

    static func stored(
        _ response: CompleteAuthResponse, key: P256.Signing.PrivateKey, connection: CoreConnection,
        publishableKey: PublishableKey
    ) throws -> StoredCredential {
        try StoredCredential(
            key: key, credentialId: response.credential.credentialId, expiresAt: response.credential.expiresAt,
            identity: StoredCredential.Identity(
                iss: response.identity.iss ?? "", sub: response.identity.sub,
                email: response.identity.email ?? response.email),
            core: connection.coreName, projectId: publishableKey.projectId, publishableKey: publishableKey.rawValue)
    }
}
