import Foundation
import OMSProtocol

/// The stored credential's request signer for as long as its session lasts: once the session is over
/// (``StoredCredential/isExpired(now:)``, 30 s early) it refuses to sign with `JobsError.sessionExpired`.
///
/// So no request leaves with a session the core would refuse, and a run whose session expires stops at
/// its next request (the engine stops the run on that error) instead of failing every later row.
struct SessionSigner: RequestSigner {
    /// The credential's own signer.
    let signer: P256RequestSigner
    /// The credential, for its expiry and the message.
    let credential: StoredCredential
    /// Seconds since the epoch.
    let now: @Sendable () -> Int64

    var algorithm: SignatureHeader.Algorithm { signer.algorithm }
    var credentialId: String { signer.credentialId }

    func signature(forPreimage preimage: [UInt8]) throws -> String {
        guard !credential.isExpired(now: now()) else { throw StoredCredential.sessionExpired(credential) }
        return try signer.signature(forPreimage: preimage)
    }
}
