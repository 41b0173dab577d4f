import Foundation
import Testing

@testable import WalletCrypto

/// AES-256-GCM through libsodium (where the CPU has AES-NI and PCLMUL) against OpenSSL's, the backend
/// it replaced: the same bytes sealed, each opening the other's, and both refusing an altered message.
@Suite struct AEADCipherContextTests {
    @Test func sodiumAndOpenSSLAgree() throws {
        guard AEADCipherContext.sodiumAES256GCMAvailable else {
            print("AES-256-GCM: libsodium's backend does not run on this CPU; OpenSSL alone is used")
            return
        }
        var generator = SystemRandomNumberGenerator()
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        var cases = 0
        for round in 0..<200 {
            let key = SecretBytes(bytes(32))
            let sodium = try AEADCipherContext(.aes256GCM, key: key)
            let openSSL = try AEADCipherContext(.aes256GCM, key: key, openSSLOnly: true)
            #expect(sodium.usesSodium && !openSSL.usesSodium)
            // Lengths around the 16-byte block, the 32-byte keys an import seals, and longer.
            let message = bytes([0, 1, 15, 16, 17, 32, 33, 64, 100, 1000][round % 10])
            let aad = bytes([0, 1, 16, 45, 130][round % 5])
            let nonce = bytes(12)
            let sealed = try sodium.seal(message, nonce: nonce, aad: aad)
            #expect(try openSSL.seal(message, nonce: nonce, aad: aad) == sealed)
            #expect(try openSSL.open(sealed, nonce: nonce, aad: aad) == message)
            #expect(try sodium.open(sealed, nonce: nonce, aad: aad) == message)
            // seal(into:) (no associated data) agrees with the array form.
            var out = [UInt8](repeating: 0, count: message.count + 16)
            try message.withUnsafeBytes { plain in
                try nonce.withUnsafeBytes { n in
                    try out.withUnsafeMutableBytes { try sodium.seal(plain, nonce: n, into: $0) }
                }
            }
            #expect(try openSSL.seal(message, nonce: nonce, aad: [UInt8]()) == out)
            // One flipped bit anywhere, or another nonce, is refused by both.
            var altered = sealed
            altered[Int.random(in: 0..<altered.count, using: &generator)] ^= 1 << UInt8.random(in: 0..<8)
            #expect(throws: CryptoError.self) { try sodium.open(altered, nonce: nonce, aad: aad) }
            #expect(throws: CryptoError.self) { try openSSL.open(altered, nonce: nonce, aad: aad) }
            #expect(throws: CryptoError.self) { try sodium.open(sealed, nonce: bytes(12), aad: aad) }
            cases += 1
        }
        #expect(cases == 200)
        print("AES-256-GCM libsodium vs OpenSSL: \(cases) random cases agreed")
    }
}
