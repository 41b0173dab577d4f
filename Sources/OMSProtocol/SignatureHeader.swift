/// The `OMS-Wallet-Signature` header of a protected request:
/// `alg="...", scope="prj_...", cred="...", nonce=<N>, sig="..."`.
public struct SignatureHeader: Hashable, Sendable, CustomStringConvertible {
    /// The header's name; HTTP header names may arrive in any case.
    public static let name = "OMS-Wallet-Signature"

    /// How the request was signed.
    public enum Algorithm: OpenEnum {
        /// A device credential: ECDSA P-256 over SHA-256 of the preimage; `cred` is the 0x04 public key.
        case p256
        /// A remote-access credential: EIP-191 personal signature over the hex keccak-256 of the
        /// preimage; `cred` is the signer's address.
        case secp256k1EIP191
        case unknown(String)

        public static let known: [Algorithm] = [.p256, .secp256k1EIP191]
        public var rawValue: String {
            switch self {
            case .p256: "ecdsa-p256-sha256"
            case .secp256k1EIP191: "ecdsa-p256k-eip191"
            case .unknown(let raw): raw
            }
        }
    }

    public var algorithm: Algorithm
    /// The project id the request is for (`prj_...`).
    public var scope: String
    /// The credential id: a hex P-256 public key or an Ethereum address.
    public var credential: String
    /// Strictly increasing per credential; milliseconds since the epoch from the official SDK.
    public var nonce: UInt64
    /// The signature, `0x` hex.
    public var signature: String

    public init(algorithm: Algorithm, scope: String, credential: String, nonce: UInt64, signature: String) {
        self.algorithm = algorithm
        self.scope = scope
        self.credential = credential
        self.nonce = nonce
        self.signature = signature
    }

    /// The header value, in the order and quoting the official SDK uses.
    public var value: String {
        "alg=\"\(algorithm.rawValue)\", scope=\"\(scope)\", cred=\"\(credential)\", nonce=\(nonce), sig=\"\(signature)\""
    }

    public var description: String { value }

    /// Parses a header value. Parameters may be quoted or bare and come in any order; each of the five
    /// must appear exactly once.
    public init(parsing text: String) throws(WaasError) {
        var fields: [String: String] = [:]
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.isEmpty { break }
            guard let equals = rest.firstIndex(of: "=") else {
                throw .invalidRequest("\(Self.name): expected name=value at '\(rest.prefix(16))'")
            }
            let key = rest[..<equals].trimmingSpaces().lowercased()
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: "\"") else {
                    throw .invalidRequest("\(Self.name): unterminated quote in \(key)")
                }
                value = rest[..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = Substring(rest[..<end].trimmingSpaces())
                rest = rest[end...]
            }
            guard fields[key] == nil else { throw .invalidRequest("\(Self.name): duplicate parameter \(key)") }
            fields[key] = String(value)
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.first == "," {
                rest = rest.dropFirst()
            } else if !rest.isEmpty {
                throw .invalidRequest("\(Self.name): expected ',' after \(key)")
            }
        }
        for required in ["alg", "scope", "cred", "nonce", "sig"] where fields[required]?.isEmpty ?? true {
            throw .invalidRequest("\(Self.name): missing \(required)")
        }
        guard let nonce = UInt64(fields["nonce"]!) else {
            throw .invalidRequest("\(Self.name): nonce must be a decimal integer")
        }
        self.init(
            algorithm: Algorithm(wire: fields["alg"]!), scope: fields["scope"]!, credential: fields["cred"]!,
            nonce: nonce, signature: fields["sig"]!)
    }
}

/// The bytes a protected request's signature covers:
/// `POST <path>\nnonce: <n>\nscope: <projectId>\n\n<exact body bytes>`.
public enum RequestPreimage {
    public static func bytes(path: String, nonce: UInt64, scope: String, body: some Collection<UInt8>) -> [UInt8] {
        var out = Array("POST \(path)\nnonce: \(nonce)\nscope: \(scope)\n\n".utf8)
        out.append(contentsOf: body)
        return out
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
