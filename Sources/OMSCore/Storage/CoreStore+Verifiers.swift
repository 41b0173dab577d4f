import Foundation
import OMSProtocol
import SQLiteKit

/// A sign-in commitment: what CommitVerifier promised and CompleteAuth must match.
struct VerifierRecord: Sendable {
    var id: String
    var credential: String
    var identityType: IdentityType
    var authMode: AuthMode
    var handle: String
    var metadata: [String: String]
    var codeHash: [UInt8]?
    var attempts: Int
    var expiresAt: Int64
    var consumedAt: Int64?
}

extension SQLiteDatabase {
    func insertVerifier(
        id: String, project: String, credential: String, request: CommitVerifierRequest, challenge: String,
        codeHash: [UInt8]?, expiresAt: Int64
    ) throws {
        let metadata = String(decoding: try JSONEncoder().encode(request.metadata), as: UTF8.self)
        try execute(
            "INSERT INTO verifiers(id, project_id, credential, identity_type, auth_mode, handle, metadata, challenge, "
                + "code_hash, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(id), .text(project), .text(credential), .text(request.identityType.rawValue),
                .text(request.authMode.rawValue), .text(request.handle ?? ""), .text(metadata), .text(challenge),
                codeHash.map { .blob($0) } ?? .null, .integer(expiresAt),
            ])
    }

    func verifier(_ id: String, project: String) throws -> VerifierRecord? {
        try rows(
            "SELECT id, credential, identity_type, auth_mode, handle, metadata, code_hash, attempts, expires_at, "
                + "consumed_at FROM verifiers WHERE id = ? AND project_id = ?", [.text(id), .text(project)]
        ).first.map { row in
            let metadata =
                (try? JSONDecoder().decode([String: String].self, from: Data((row[5].text ?? "{}").utf8))) ?? [:]
            return VerifierRecord(
                id: row[0].text ?? "", credential: row[1].text ?? "",
                identityType: IdentityType(wire: row[2].text ?? ""),
                authMode: AuthMode(wire: row[3].text ?? ""), handle: row[4].text ?? "", metadata: metadata,
                codeHash: row[6].bytes, attempts: Int(row[7].int ?? 0), expiresAt: row[8].int ?? 0,
                consumedAt: row[9].int)
        }
    }
}
