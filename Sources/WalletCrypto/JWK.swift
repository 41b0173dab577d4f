/// A public JSON Web Key ([RFC 7517](https://www.rfc-editor.org/rfc/rfc7517)): EC P-256 keys for
/// ES256 ([RFC 7518 §6.2](https://www.rfc-editor.org/rfc/rfc7518#section-6.2)), and RSA keys far
/// enough to compute their [RFC 7638](https://www.rfc-editor.org/rfc/rfc7638) thumbprint.
///
/// Only public members are kept: a private `d` in the input is dropped, never stored.
public struct JWK: Sendable, Hashable {
    /// Key type: `"EC"` or `"RSA"`.
    public var kty: String
    /// Curve, for EC keys: `"P-256"`.
    public var crv: String?
    /// EC x-coordinate, base64url.
    public var x: String?
    /// EC y-coordinate, base64url.
    public var y: String?
    /// RSA modulus, base64url.
    public var n: String?
    /// RSA public exponent, base64url.
    public var e: String?
    /// Key identifier.
    public var kid: String?
    /// Intended algorithm, e.g. `"ES256"`.
    public var alg: String?
    /// Intended use, e.g. `"sig"`.
    public var use: String?

    /// The JWK of a P-256 public key.
    public init(
        p256PublicKey key: P256.Signing.PublicKey, kid: String? = nil, alg: String? = "ES256", use: String? = "sig"
    ) {
        self.kty = "EC"
        self.crv = "P-256"
        self.x = Base64URL.encode(key.x)
        self.y = Base64URL.encode(key.y)
        self.kid = kid
        self.alg = alg
        self.use = use
    }

    /// Reads a JWK object, checking member types; unknown and private members are ignored.
    /// - Throws: `JOSEError` `.malformed` naming the member at fault.
    public init(json: JSONValue) throws(JOSEError) {
        guard let object = json.objectValue else { throw JOSEError(.malformed, "JWK is not a JSON object") }
        func string(_ name: String) throws(JOSEError) -> String? {
            guard let value = object[name] else { return nil }
            guard let string = value.stringValue else {
                throw JOSEError(.malformed, "JWK member \(name) is not a string")
            }
            return string
        }
        guard let kty = try string("kty") else { throw JOSEError(.malformed, "JWK has no kty") }
        self.kty = kty
        self.crv = try string("crv")
        self.x = try string("x")
        self.y = try string("y")
        self.n = try string("n")
        self.e = try string("e")
        self.kid = try string("kid")
        self.alg = try string("alg")
        self.use = try string("use")
    }

    /// Reads a JWK from JSON text.
    public init(jsonString: String) throws(JOSEError) {
        try self.init(json: parseJSON(jsonString, of: "JWK"))
    }

    /// The public members as a JSON object: `kty, crv, x, y, n, e, kid, alg, use` (those present).
    public var json: JSONValue {
        var object = JSONObject()
        object["kty"] = .string(kty)
        let optional: [(String, String?)] = [
            ("crv", crv), ("x", x), ("y", y), ("n", n), ("e", e), ("kid", kid), ("alg", alg), ("use", use),
        ]
        for (name, value) in optional { if let value { object[name] = .string(value) } }
        return .object(object)
    }

    /// The P-256 public key this JWK describes.
    /// - Throws: `JOSEError` `.unsupportedKey` unless `kty` is EC and `crv` is P-256 with 32-byte
    ///   coordinates of a point on the curve.
    public func p256PublicKey() throws(JOSEError) -> P256.Signing.PublicKey {
        guard kty == "EC", crv == "P-256", let x, let y else {
            throw JOSEError(.unsupportedKey, "JWK is \(kty)/\(crv ?? "-"), not an EC P-256 key")
        }
        do {
            let xBytes = try Base64URL.decode(x)
            let yBytes = try Base64URL.decode(y)
            guard xBytes.count == 32, yBytes.count == 32 else {
                throw JOSEError(.unsupportedKey, "JWK P-256 coordinates must be 32 bytes each")
            }
            return try P256.Signing.PublicKey(x: xBytes, y: yBytes)
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.unsupportedKey, "JWK P-256 key is invalid: \(error)")
        }
    }

    /// The RFC 7638 thumbprint input: the required members in lexicographic order, no whitespace
    /// (`{"crv","kty","x","y"}` for EC, `{"e","kty","n"}` for RSA).
    /// - Throws: `JOSEError` `.unsupportedKey` for other key types or missing members.
    public func thumbprintInput() throws(JOSEError) -> [UInt8] {
        let members: [(String, String?)]
        switch kty {
        case "EC": members = [("crv", crv), ("kty", kty), ("x", x), ("y", y)]
        case "RSA": members = [("e", e), ("kty", kty), ("n", n)]
        default: throw JOSEError(.unsupportedKey, "no RFC 7638 thumbprint for kty \(kty)")
        }
        var object = JSONObject()
        for (name, value) in members {
            guard let value else { throw JOSEError(.unsupportedKey, "JWK \(kty) lacks \(name)") }
            object[name] = .string(value)
        }
        return JSONValue.object(object).serializedBytes()
    }

    /// The RFC 7638 SHA-256 thumbprint, base64url-encoded.
    public func thumbprint() throws(JOSEError) -> String {
        Base64URL.encode(SHA256.hash(data: try thumbprintInput()))
    }
}

/// A JWK Set ([RFC 7517 §5](https://www.rfc-editor.org/rfc/rfc7517#section-5)): `{"keys": [...]}`.
public struct JWKSet: Sendable, Hashable {
    /// The keys, in order.
    public var keys: [JWK]

    /// A set of `keys`.
    public init(keys: [JWK]) {
        self.keys = keys
    }

    /// Reads `{"keys": [...]}`.
    /// - Throws: `JOSEError` `.malformed`.
    public init(json: JSONValue) throws(JOSEError) {
        guard let array = json["keys"]?.arrayValue else { throw JOSEError(.malformed, "JWK Set has no keys array") }
        var keys: [JWK] = []
        for element in array { keys.append(try JWK(json: element)) }
        self.keys = keys
    }

    /// Reads a JWK Set from JSON text.
    public init(jsonString: String) throws(JOSEError) {
        try self.init(json: parseJSON(jsonString, of: "JWK Set"))
    }

    /// `{"keys": [...]}`.
    public var json: JSONValue { ["keys": .array(keys.map(\.json))] }

    /// The key with identifier `kid`, if exactly one has it.
    public func key(kid: String) -> JWK? {
        let matches = keys.filter { $0.kid == kid }
        return matches.count == 1 ? matches[0] : nil
    }
}

/// Parses the JSON text of a JOSE object; a syntax error becomes `JOSEError.malformed` naming `what`.
private func parseJSON(_ text: String, of what: String) throws(JOSEError) -> JSONValue {
    do { return try JSONValue.parse(text) } catch { throw JOSEError(.malformed, "\(what): \(error)") }
}
