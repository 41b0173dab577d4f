import WalletCrypto

/// What a client trusts in attestation documents, per service environment.
///
/// - Development: the core's own (debug-mode) chain, pinned by the SHA-256 of its root certificate's
///   DER (`walletops core attestation-root`), and PCR0 must be all zeros, as in a debug-mode enclave.
/// - Staging and production: the AWS Nitro Enclaves root, pinned by SHA-256
///   `641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b`, and PCR0 must be one of the
///   published enclave image measurements; an all-zero (debug-mode) PCR0 is always refused.
public struct AttestationPolicy: Sendable, Hashable {
    /// The service environment the policy is for.
    public enum Environment: String, Sendable, Hashable, CaseIterable {
        case development, staging, production
    }

    /// The environment.
    public var environment: Environment
    /// SHA-256 of the DER of the root the chain must end at.
    public var pinnedRootSHA256: [UInt8]
    /// For staging and production: the accepted PCR0 values (48 bytes each). Unused in development.
    public var allowedPCR0s: [[UInt8]]

    /// A policy with an explicit root; prefer the named constructors.
    public init(environment: Environment, pinnedRootSHA256: [UInt8], allowedPCR0s: [[UInt8]] = []) {
        self.environment = environment
        self.pinnedRootSHA256 = pinnedRootSHA256
        self.allowedPCR0s = allowedPCR0s
    }

    /// Development: trusts the core's own root, given by the SHA-256 of its DER.
    public static func development(rootSHA256: [UInt8]) -> AttestationPolicy {
        AttestationPolicy(environment: .development, pinnedRootSHA256: rootSHA256)
    }

    /// Development: trusts the core's own root certificate.
    public static func development(root: X509Certificate) -> AttestationPolicy {
        development(rootSHA256: root.sha256Fingerprint)
    }

    /// Development: trusts the core root in PEM (`attestation-root.pem` in the core's home, or the
    /// output of `walletops core attestation-root`).
    /// - Throws: `X509Error` when the text holds no certificate.
    public static func development(rootPEM: String) throws -> AttestationPolicy {
        development(root: try X509Certificate(pemEncoded: rootPEM))
    }

    /// Staging: the AWS Nitro root and the published PCR0s of the staging enclave image.
    public static func staging(pcr0s: [[UInt8]]) -> AttestationPolicy {
        AttestationPolicy(environment: .staging, pinnedRootSHA256: Attestation.awsNitroRootSHA256, allowedPCR0s: pcr0s)
    }

    /// Production: the AWS Nitro root and the published PCR0s of the production enclave image.
    public static func production(pcr0s: [[UInt8]]) -> AttestationPolicy {
        AttestationPolicy(
            environment: .production, pinnedRootSHA256: Attestation.awsNitroRootSHA256, allowedPCR0s: pcr0s)
    }

    /// Why `pcr0` is refused, or nil when this policy accepts it.
    func refusal(pcr0: [UInt8]?) -> String? {
        guard let pcr0 else { return "the document has no PCR0" }
        let debug = pcr0.allSatisfy { $0 == 0 }
        switch environment {
        case .development:
            return debug ? nil : "PCR0 is not all zeros: development expects a debug-mode enclave"
        case .staging, .production:
            if debug { return "PCR0 is all zeros (a debug-mode enclave), refused in \(environment.rawValue)" }
            return allowedPCR0s.contains(where: { constantTimeEquals($0, pcr0) })
                ? nil : "PCR0 \(Base16.encode(pcr0)) is not a published \(environment.rawValue) measurement"
        }
    }
}
