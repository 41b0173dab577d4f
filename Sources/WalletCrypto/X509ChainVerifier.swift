internal import COpenSSL
import Foundation

/// Verifies a certificate chain up to a root pinned by the SHA-256 of its DER.
///
/// The root is looked up in the bundle (an AWS Nitro `cabundle` lists the root first, then the
/// intermediates) by its fingerprint and becomes the only trust anchor; the other bundle
/// certificates are untrusted intermediates. OpenSSL's `X509_verify_cert` then builds and checks
/// the path (signatures, validity at the injected time, CA basic constraints, path lengths, the
/// root's self-signature) per [RFC 5280 §6](https://www.rfc-editor.org/rfc/rfc5280#section-6).
public enum X509ChainVerifier {
    /// Verifies `leaf` through `intermediates` to the certificate whose SHA-256 is `pinnedRootSHA256`.
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - intermediates: the bundle; it must contain the pinned root, in any position.
    ///   - pinnedRootSHA256: SHA-256 of the root certificate's DER (32 bytes).
    ///   - date: the time at which every certificate of the path must be valid.
    /// - Returns: the verified path, leaf first, pinned root last.
    /// - Throws: `X509Error` `.pinnedRootNotFound`, `.expired`, `.notYetValid` or `.chainInvalid`.
    @discardableResult
    public static func verify(
        leaf: X509Certificate, intermediates: [X509Certificate], pinnedRootSHA256: [UInt8], at date: Date
    ) throws(X509Error) -> [X509Certificate] {
        guard pinnedRootSHA256.count == 32,
            let root = intermediates.first(where: { constantTimeEquals($0.sha256Fingerprint, pinnedRootSHA256) })
        else {
            throw X509Error(
                .pinnedRootNotFound, "no certificate of the bundle (\(intermediates.count)) has the pinned SHA-256")
        }
        let leafHandle = try X509Handle(der: leaf.derBytes)
        let rootHandle = try X509Handle(der: root.derBytes)
        var untrustedHandles: [X509Handle] = []
        for certificate in intermediates where certificate != root {
            untrustedHandles.append(try X509Handle(der: certificate.derBytes))
        }
        // The store context borrows these certificates until it is freed.
        defer { withExtendedLifetime((leafHandle, rootHandle, untrustedHandles)) {} }

        guard let store = X509_STORE_new() else { throw X509Error(.chainInvalid, "X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        guard X509_STORE_add_cert(store, rootHandle.pointer) == 1 else {
            ERR_clear_error()
            throw X509Error(.chainInvalid, "the pinned root could not be added to the trust store")
        }
        guard let untrusted = OPENSSL_sk_new_null() else { throw X509Error(.chainInvalid, "stack allocation failed") }
        defer { OPENSSL_sk_free(untrusted) }  // the handles own the certificates
        for handle in untrustedHandles {
            guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(handle.pointer)) > 0 else {
                throw X509Error(.chainInvalid, "stack push failed")
            }
        }
        guard let context = X509_STORE_CTX_new() else { throw X509Error(.chainInvalid, "X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leafHandle.pointer, untrusted) == 1 else {
            ERR_clear_error()
            throw X509Error(.chainInvalid, "X509_STORE_CTX_init failed")
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        // The injected time replaces the clock; the root's self-signature is checked too.
        X509_VERIFY_PARAM_set_time(parameters, time_t(date.timeIntervalSince1970.rounded(.down)))
        X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_CHECK_SS_SIGNATURE))

        let result = X509_verify_cert(context)
        guard result == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
            ERR_clear_error()
            let message = "\(reason) at chain depth \(depth) (leaf \(leaf.subject))"
            switch code {
            case X509_V_ERR_CERT_HAS_EXPIRED: throw X509Error(.expired, message)
            case X509_V_ERR_CERT_NOT_YET_VALID: throw X509Error(.notYetValid, message)
            default: throw X509Error(.chainInvalid, message)
            }
        }

        // Read the built path back and confirm it ends at the pinned root.
        var path: [X509Certificate] = []
        let candidates = [leaf] + intermediates
        if let chain = X509_STORE_CTX_get0_chain(context) {
            for index in 0..<OPENSSL_sk_num(chain) {
                let element = OpaquePointer(OPENSSL_sk_value(chain, index))
                var der: UnsafeMutablePointer<UInt8>?
                let length = i2d_X509(element, &der)
                guard length > 0, let der else { continue }
                let bytes = Array(UnsafeBufferPointer(start: der, count: Int(length)))
                CRYPTO_free(der, #fileID, #line)
                if let match = candidates.first(where: { $0.derBytes == bytes }) { path.append(match) }
            }
        }
        guard path.first == leaf, path.last == root else {
            throw X509Error(.chainInvalid, "the verified path does not end at the pinned root")
        }
        return path
    }
}
