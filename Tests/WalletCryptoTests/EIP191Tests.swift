import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct EIP191Tests {
    /// web3.js documentation, `web3.eth.accounts.sign('Some data', '0x4c08...2318')`
    /// (https://docs.web3js.org/api/web3-eth-accounts/function/sign): RFC 6979 makes the signature reproducible.
    @Test func web3jsDocumentedVector() throws {
        let key = try Secp256k1.PrivateKey(
            SecretBytes(try #require(Hex.decode("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"))))
        let message = Array("Some data".utf8)
        #expect(
            Base16.encode(EIP191.hash(message: message))
                == "1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655")
        #expect(EIP191.hash(message: "Some data") == EIP191.hash(message: message))
        let signature = EIP191.sign(message: message, with: key)
        #expect(
            Base16.encode(signature.bytes(vOffset: 27))
                == "b91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd"
                + "6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c")
        let wire = try Secp256k1.RecoverableSignature(bytes: signature.bytes(vOffset: 27))
        #expect(try EIP191.recoverAddress(message: message, signature: wire) == key.ethereumAddress)
        #expect(EIP191.verify(message: message, signature: wire, address: key.ethereumAddress))
    }

    @Test func roundTripAndRejections() throws {
        let key = Secp256k1.PrivateKey.generate()
        let other = Secp256k1.PrivateKey.generate()
        for message in ["", "hello", String(repeating: "long message ", count: 40)] {
            let bytes = Array(message.utf8)
            let signature = EIP191.sign(message: bytes, with: key)
            #expect(try EIP191.recoverAddress(message: bytes, signature: signature) == key.ethereumAddress)
            #expect(EIP191.verify(message: bytes, signature: signature, address: key.ethereumAddress))
            #expect(!EIP191.verify(message: bytes, signature: signature, address: other.ethereumAddress))
            #expect(!EIP191.verify(message: bytes + [0], signature: signature, address: key.ethereumAddress))
            // The EIP-191 digest is not the plain keccak of the message.
            #expect(EIP191.hash(message: bytes) != Keccak256.hash(bytes))
        }
    }

    /// The length prefix is the decimal byte count, so a 1000-byte message is prefixed "1000".
    @Test func prefixUsesDecimalByteLength() {
        let message = [UInt8](repeating: 0x61, count: 1000)
        let manual = Keccak256.hash(Array("\u{19}Ethereum Signed Message:\n1000".utf8) + message)
        #expect(EIP191.hash(message: message) == manual)
    }
}
