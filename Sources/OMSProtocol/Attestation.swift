import WalletCrypto

/// The attestation of import requests on the wire (OMS-REFERENCE "Attestation of import requests").
///
/// The client sends a random nonce in `X-Attestation-Nonce`; the reply carries a base64 COSE_Sign1
/// (ES384) AWS Nitro attestation document in `X-Attestation-Document` whose `nonce` echoes it and whose
/// `user_data` binds the exact request and reply bodies.
public enum Attestation {
    /// The request header with the client's nonce (base64).
    public static let nonceHeader = "X-Attestation-Nonce"
    /// The reply header with the attestation document (base64 COSE_Sign1).
    public static let documentHeader = "X-Attestation-Document"
    /// The size of the nonce the official SDK sends.
    public static let nonceSize = 18
    /// The methods whose replies are attested.
    public static let attestedMethods: Set<WaasMethod> = [.getRecipientKey, .importWallet, .importWallets]
    /// The prefix of `user_data`.
    public static let userDataPrefix = "Sequence/1:"
    /// How far a document's timestamp may be from the verifier's clock, in seconds.
    public static let maxTimestampSkew: Int64 = 300

    /// SHA-256 of the DER of the AWS Nitro Enclaves root certificate ("AWS_NitroEnclaves_Root-G1").
    public static let awsNitroRootSHA256: [UInt8] = [
        0x64, 0x1a, 0x03, 0x21, 0xa3, 0xe2, 0x44, 0xef, 0xe4, 0x56, 0x46, 0x31, 0x95, 0xd6, 0x06, 0x31,
        0x7e, 0xd7, 0xcd, 0xcc, 0x3c, 0x17, 0x56, 0xe0, 0x98, 0x93, 0xf3, 0xc6, 0x8f, 0x79, 0xbb, 0x5b,
    ]

    /// `user_data` of an attested reply: `"Sequence/1:" + base64(SHA-256("POST <path>\n<request>\n<reply>"))`,
    /// over the exact body bytes.
    public static func userData(method: WaasMethod, requestBody: [UInt8], responseBody: [UInt8]) -> [UInt8] {
        let preimage = Array("POST \(method.path)\n".utf8) + requestBody + [0x0a] + responseBody
        return Array((userDataPrefix + CanonicalBase64.encode(SHA256.hash(data: preimage))).utf8)
    }

    /// A fresh random nonce of `nonceSize` bytes.
    public static func makeNonce() -> [UInt8] {
        SecretBytes.random(count: nonceSize).unsafeCopy()
    }
}
