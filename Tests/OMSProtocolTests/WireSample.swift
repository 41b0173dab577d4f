import Foundation
import TestSupport

/// One request captured from the official OMS TypeScript SDK (Tests/Fixtures/wire-samples).
struct WireSample {
    let file: String
    let path: String
    let headers: [String: String]
    let rawBody: String
    let reconstructedPreimage: String?

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    static func all() throws -> [WireSample] {
        let directory = Fixtures.url("wire-samples")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        return try files.map { file in
            let object = try require(try Fixtures.json("wire-samples/\(file)") as? [String: Any])
            return WireSample(
                file: file, path: try require(object["path"] as? String),
                headers: try require(object["headers"] as? [String: String]),
                rawBody: try require(object["rawBody"] as? String),
                reconstructedPreimage: object["reconstructedPreimage"] as? String)
        }
    }
}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw WireSampleError() }
    return value
}

private struct WireSampleError: Error {}
