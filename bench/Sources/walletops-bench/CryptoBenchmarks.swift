import Foundation
import WalletCrypto

/// WalletCrypto figures: microseconds per operation, next to the C (OpenSSL) reference measured on
/// the project machine, so a regression in the Swift layer shows as a growing ratio.
enum CryptoBenchmarks {
    struct Case {
        let name: String
        let referenceMicroseconds: Double?
        let body: () throws -> Void
    }

    /// Runs each case for about `seconds` and prints one row per case.
    static func run(seconds: Double = 0.3) throws {
        let message = Array("walletops benchmark message".utf8)
        let signer = try P256.Signing.PrivateKey()
        let peer = try P256.KeyAgreement.PrivateKey()
        let signature = try signer.signature(for: message)
        let verifier = signer.publicKey
        let p384 = try P384.Signing.PrivateKey()
        let p384Signature = try p384.signature(for: message)
        let aesKey = SecretBytes.random(count: 32)
        let gcm = try AESGCM.Context(key: aesKey)
        let nonce = [UInt8](repeating: 7, count: 12)
        let block32 = [UInt8](repeating: 1, count: 32)
        let chacha = try ChaChaPoly.Context(key: aesKey)
        let x25519 = try X25519.PrivateKey()
        let x25519Peer = try X25519.PrivateKey().publicKey
        let hpkeKeys = try HPKE.KEM.x25519HKDFSHA256.generateKeyPair()

        let cases = [
            Case(name: "P-256 ECDSA sign (raw r||s)", referenceMicroseconds: 13.9) {
                _ = try signer.signature(for: message)
            },
            Case(name: "P-256 ECDSA verify (raw r||s)", referenceMicroseconds: 40.5) {
                _ = verifier.isValidSignature(signature, for: message)
            },
            Case(name: "P-256 ECDH", referenceMicroseconds: 30.6) {
                _ = try signer.sharedSecret(with: peer.publicKey)
            },
            Case(name: "P-384 ECDSA verify", referenceMicroseconds: nil) {
                _ = p384.publicKey.isValidSignature(p384Signature, for: message)
            },
            Case(name: "AES-256-GCM seal 32 B (context)", referenceMicroseconds: 0.16) {
                _ = try gcm.seal(block32, nonce: nonce)
            },
            Case(name: "ChaCha20-Poly1305 seal 32 B (context)", referenceMicroseconds: nil) {
                _ = try chacha.seal(block32, nonce: nonce)
            },
            Case(name: "SHA-256 32 B", referenceMicroseconds: nil) { _ = SHA256.hash(data: block32) },
            Case(name: "HMAC-SHA256 32 B", referenceMicroseconds: nil) {
                _ = HMAC.authenticationCode(for: block32, key: aesKey)
            },
            Case(name: "X25519", referenceMicroseconds: nil) { _ = try x25519.sharedSecret(with: x25519Peer) },
            Case(name: "HPKE X25519/ChaCha setup + seal 32 B", referenceMicroseconds: nil) {
                let sender = try HPKE.Sender(
                    suite: .x25519SHA256ChaChaPoly, recipientKey: hpkeKeys.publicKey, info: [UInt8]())
                _ = try sender.seal(block32)
            },
        ]
        print("case | us/op | C reference us/op | ratio")
        for benchmark in cases {
            try benchmark.body()  // warm up
            let clock = ContinuousClock()
            let start = clock.now
            var iterations = 0
            while (clock.now - start) < .seconds(seconds) {
                for _ in 0..<16 { try benchmark.body() }
                iterations += 16
            }
            let elapsed = clock.now - start
            let micros =
                (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
                / Double(iterations)
            let reference = benchmark.referenceMicroseconds.map { String(format: "%.2f", $0) } ?? "-"
            let ratio = benchmark.referenceMicroseconds.map { String(format: "%.2fx", micros / $0) } ?? "-"
            print("\(benchmark.name) | \(String(format: "%.2f", micros)) | \(reference) | \(ratio)")
        }
    }
}
