import Foundation
import HomeLayout
import OMSProtocol

/// Where a development core "sends" one-time codes: one file per address under `<home>/outbox/`, mode
/// 0600, newest code last. Production would hand the code to a mail service instead.
struct OTPOutbox: Sendable {
    let directory: URL

    func deliver(code: String, to email: String, verifier: String, expiresAt: Int64) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = directory.appendingPathComponent(Self.fileName(for: email))
        var text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        text += "code=\(code) verifier=\(verifier) expires=\(RFC3339.format(expiresAt))\n"
        try WalletHome.writePrivateFile(Array(text.utf8), to: url)
    }

    /// The file of an address: safe characters only.
    static func fileName(for email: String) -> String {
        String(email.lowercased().map { $0.isLetter || $0.isNumber || "@._-+".contains($0) ? $0 : "_" }) + ".txt"
    }
}
