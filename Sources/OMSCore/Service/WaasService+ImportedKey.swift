import KeyFormats
import OMSProtocol
import WalletCrypto

extension WaasService {
    /// The canonical 32 bytes of an import's key (the secp256k1 scalar, or the Ed25519 seed of a seed or a
    /// keypair whose public half matches it), read in the forms OMS-REFERENCE "Import" accepts by KeyFormats'
    /// one parser, which the SDK and the CLI use too.
    ///
    /// - Throws: `invalidRequest`, saying what is wrong with the form and never any byte of the key.
    static func importedSecret(_ plaintext: SecretBytes, type: KeyType) throws(WaasError) -> SecretBytes {
        do {
            return try KeyParser.validateImport(plaintext, type: type).secret
        } catch {
            throw WaasError(.invalidRequest, error.reason)
        }
    }
}
