import Foundation
import WalletCrypto

/// `walletops-bench crypto`: the cost of each primitive through our Swift wrappers, beside the same
/// libraries called from C (`bench/floor/crypto_floor`, run by scripts/bench.sh in the same run).
enum CryptoBench {
    struct Case {
        var name: String
        var iterations: Int
        var body: () throws -> Void
    }

    static func cases() throws -> [Case] {
        var seed = [UInt8](repeating: 0x11, count: 32)
        let p256 = try P256.Signing.PrivateKey()
        let p256Peer = try P256.Signing.PrivateKey().publicKey
        let p384 = try P384.Signing.PrivateKey()
        let message = [UInt8](repeating: 0x42, count: 64)
        let p256Signature = try p256.signature(for: message)
        let p384Signature = try p384.signature(for: message)
        let gcm = try AESGCM.Context(key: SecretBytes.random(count: 32))
        var nonce = [UInt8](repeating: 0, count: 12)
        let plaintext = [UInt8](repeating: 7, count: 32)
        var keccakInput = [UInt8](repeating: 0, count: 64)
        var sink: UInt8 = 0
        let chacha = try ChaChaPoly.Context(key: SecretBytes.random(count: 32))
        let x25519 = try X25519.PrivateKey()
        let x25519Peer = try X25519.PrivateKey().publicKey
        let hpkeKeys = try HPKE.KEM.p256HKDFSHA256.generateKeyPair()
        let hpkeSuite = HPKE.Suite(kem: .p256HKDFSHA256, kdf: .hkdfSHA256, aead: .aes256GCM)
        return [
            Case(name: "secp256k1 public key + Ethereum address", iterations: 2500) {
                seed[31] &+= 1
                if seed[31] == 0 { seed[30] &+= 1 }
                let key = try Secp256k1.PrivateKey(SecretBytes(seed))
                sink ^= key.ethereumAddress.bytes[0]
            },
            Case(name: "Ed25519 keypair from seed", iterations: 2500) {
                seed[0] &+= 1
                let key = try Ed25519.PrivateKey(seed: SecretBytes(seed))
                sink ^= key.publicKey.rawRepresentation[0]
            },
            Case(name: "keccak-256 of 64 B", iterations: 62500) {
                let digest = Keccak256.hash(keccakInput)
                keccakInput[0] = digest[0]
            },
            Case(name: "P-256 ECDSA sign", iterations: 625) { sink ^= try p256.signature(for: message)[0] },
            Case(name: "P-256 ECDSA verify", iterations: 375) {
                if p256.publicKey.isValidSignature(p256Signature, for: message) { sink ^= 1 }
            },
            Case(name: "P-256 ECDH", iterations: 375) {
                sink ^= try p256.sharedSecret(with: p256Peer).count == 32 ? 1 : 0
            },
            Case(name: "P-384 ECDSA sign", iterations: 37) { sink ^= try p384.signature(for: message)[0] },
            Case(name: "P-384 ECDSA verify", iterations: 37) {
                if p384.publicKey.isValidSignature(p384Signature, for: message) { sink ^= 1 }
            },
            Case(name: "AES-256-GCM seal of 32 B (reused context)", iterations: 62500) {
                nonce[0] &+= 1
                sink ^= try gcm.seal(plaintext, nonce: nonce)[0]
            },
            Case(name: "ChaCha20-Poly1305 seal of 32 B (reused context)", iterations: 25000) {
                nonce[0] &+= 1
                sink ^= try chacha.seal(plaintext, nonce: nonce)[0]
            },
            Case(name: "SHA-256 of 32 B", iterations: 25000) { sink ^= SHA256.hash(data: plaintext)[0] },
            Case(name: "X25519", iterations: 625) {
                sink ^= try x25519.sharedSecret(with: x25519Peer).count == 32 ? 1 : 0
            },
            Case(name: "HPKE P-256/AES-256-GCM setup + seal of 32 B", iterations: 250) {
                let sender = try HPKE.Sender(suite: hpkeSuite, recipientKey: hpkeKeys.publicKey, info: [UInt8]())
                sink ^= try sender.seal(plaintext)[0]
            },
        ]
    }

    /// Runs every case; `floor` maps a case name to the C figure in microseconds.
    static func run(floor: [String: Double]) throws -> String {
        var table = Table(header: ["primitive", "swift us", "C us", "ratio", "goal <= 1.5x"])
        for item in try cases() {
            let swift = try Measure.microseconds(iterations: item.iterations, item.body)
            if let c = floor[item.name] {
                let ratio = swift / c
                table.add([
                    item.name, format(swift, digits: 3), format(c, digits: 3), format(ratio),
                    ratio <= 1.5 ? "yes" : "NO",
                ])
            } else {
                table.add([item.name, format(swift, digits: 3), "-", "-", "-"])
            }
        }
        return table.render()
    }
}
