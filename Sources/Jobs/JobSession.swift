import Foundation
import HomeLayout
import OMSProtocol
import WalletCrypto

/// The signed-in connection the job actions share: one stateless ``WaasClient`` (explicit wallet ids,
/// no active wallet) used by every concurrent item, opened once per command and per core by
/// ``JobServices/session(coreURL:)``.
public final class JobSession: Sendable {
    /// The connection (embedded core or `--core`).
    public let connection: CoreConnection
    /// The signed-in credential.
    public let credential: StoredCredential
    /// The client every item shares.
    public let client: WaasClient

    /// A session of an opened connection.
    public init(connection: CoreConnection, credential: StoredCredential, client: WaasClient) {
        self.connection = connection
        self.credential = credential
        self.client = client
    }

    /// The attestation checks for import replies: the development root pinned from `rootPEMPath`, else
    /// from the home's `attestation-root.pem` (written by `walletops core init`).
    public func attestationVerifier(rootPEMPath: String?) throws -> AttestationVerifier {
        let path = rootPEMPath.flatMap { $0.isEmpty ? nil : $0 } ?? connection.home.attestationRootURL.path
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw JobsError(
                .invalidInput,
                "cannot read the attestation root \(path): pass --var attestation_root=<core home>/attestation-root.pem"
            )
        }
        return AttestationVerifier(policy: try AttestationPolicy.development(rootPEM: pem))
    }

    /// The core named by a `core` parameter, else `$WALLETOPS_CORE`; nil for the embedded core.
    public static func coreURL(parameter: String?, environment: [String: String]) throws -> URL? {
        let text = parameter.flatMap { $0.isEmpty ? nil : $0 } ?? environment["WALLETOPS_CORE"]
        guard let text, !text.isEmpty else { return nil }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw JobsError(.invalidInput, "core '\(text)' is not an http(s) URL")
        }
        return url
    }
}
