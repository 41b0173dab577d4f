extension JWK {
    /// The JWK of an RSA public key ([RFC 7518 §6.3.1](https://www.rfc-editor.org/rfc/rfc7518#section-6.3.1)):
    /// `n` and `e` big-endian without leading zeros, base64url.
    public init(rsaPublicKey key: RSA.PublicKey, kid: String? = nil, alg: String? = "RS256", use: String? = "sig") {
        self.kty = "RSA"
        self.crv = nil
        self.x = nil
        self.y = nil
        self.n = Base64URL.encode(key.modulus)
        self.e = Base64URL.encode(key.exponent)
        self.kid = kid
        self.alg = alg
        self.use = use
    }
}
