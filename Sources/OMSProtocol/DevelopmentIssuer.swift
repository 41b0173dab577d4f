/// Mints ID tokens of a core's development issuer, which the core's development projects trust: how a
/// client signs in on a development machine without an identity provider.
///
/// A client is handed one (OMSEmbedded makes one that reads a home's development key) and never looks the
/// key up itself, so it reaches the core through its transport alone.
public protocol DevelopmentIssuer: Sendable {
    /// A short-lived ID token for `email`, marked verified.
    ///
    /// - Throws: when the issuer's key cannot be read (no such core, or a core without a development issuer).
    func idToken(email: String) async throws -> String
}
