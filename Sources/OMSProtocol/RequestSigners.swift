import WalletCrypto

/// Signs requests with a device credential's P-256 key (`ecdsa-p256-sha256`): `cred` is the 0x04
/// uncompressed public key in hex and `sig` the 64-byte r||s of ECDSA-SHA256 over the preimage.
public struct P256RequestSigner: RequestSigner {
    public let key: P256.Signing.PrivateKey
    public let credentialId: String
    public var algorithm: SignatureHeader.Algorithm { .p256 }

    public init(key: P256.Signing.PrivateKey) {
        self.key = key
        self.credentialId = Base16.encodePrefixed(key.publicKey.x963Representation)
    }

    public func signature(forPreimage preimage: [UInt8]) throws -> String {
        Base16.encodePrefixed(try key.signature(for: preimage))
    }
}

/// Signs requests with an Ethereum key (`ecdsa-p256k-eip191`), as a remote-access credential does:
/// `cred` is the EIP-55 address and `sig` an EIP-191 personal-message signature (65 bytes, v 27/28) over
/// the 66-character text `0x` + hex(keccak256(preimage)).
public struct EthereumRequestSigner: RequestSigner {
    public let key: Secp256k1.PrivateKey
    public let credentialId: String
    public var algorithm: SignatureHeader.Algorithm { .secp256k1EIP191 }

    public init(key: Secp256k1.PrivateKey) {
        self.key = key
        self.credentialId = key.ethereumAddress.checksummed
    }

    public func signature(forPreimage preimage: [UInt8]) throws -> String {
        let message = EthereumRequestSigner.signedText(preimage: preimage)
        return Base16.encodePrefixed(EIP191.sign(message: message, with: key).bytes(vOffset: 27))
    }

    /// The personal message an EIP-191 request signature covers.
    static func signedText(preimage: [UInt8]) -> [UInt8] {
        Array(Base16.encodePrefixed(Keccak256.hash(preimage)).utf8)
    }
}

/// Checks the signature of a protected request against its credential (the server side of signing).
public enum RequestVerifier {
    /// Verifies `header.signature` over `preimage` for `header.credential`.
    ///
    /// - Throws: `WaasError` InvalidSignature (7201) when the signature does not verify or its parts are
    ///   malformed; InvalidRequest (7200) for an unknown algorithm.
    public static func verify(_ header: SignatureHeader, preimage: [UInt8]) throws(WaasError) {
        guard let signature = try? Base16.decode(header.signature, requirePrefix: true) else {
            throw WaasError(.invalidSignature, "sig is not 0x-prefixed hex")
        }
        switch header.algorithm {
        case .p256:
            guard let point = try? Base16.decode(header.credential, requirePrefix: true), point.count == 65,
                let key = try? P256.Signing.PublicKey(x963Representation: point)
            else { throw WaasError(.invalidSignature, "cred is not an uncompressed P-256 public key") }
            guard signature.count == 64, key.isValidSignature(signature, for: preimage) else {
                throw WaasError(.invalidSignature, "signature does not verify for this credential")
            }
        case .secp256k1EIP191:
            guard let address = try? EthereumAddress(header.credential, strict: false) else {
                throw WaasError(.invalidSignature, "cred is not an Ethereum address")
            }
            guard let recoverable = try? Secp256k1.RecoverableSignature(bytes: signature),
                EIP191.verify(
                    message: EthereumRequestSigner.signedText(preimage: preimage), signature: recoverable,
                    address: address)
            else { throw WaasError(.invalidSignature, "signature does not verify for this credential") }
        case .unknown(let name):
            throw WaasError(.invalidRequest, "unsupported signature algorithm \(name)")
        }
    }
}
