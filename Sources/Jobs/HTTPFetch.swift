import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `GET` of a small document (a JWK Set, a discovery document) over HTTP(S) with URLSession.
public enum HTTPFetch {
    /// The largest document accepted.
    public static let maxBytes = 1 << 20

    /// The body of `GET url`, which must answer 200.
    /// - Throws: `JobsError.fetchFailed` when the host is unreachable, the status is not 200, or the body
    ///   is larger than `maxBytes`.
    public static func get(_ url: URL, timeout: TimeInterval = 15) async throws -> [UInt8] {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw JobsError(.fetchFailed, "GET \(url.absoluteString): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            throw JobsError(.fetchFailed, "GET \(url.absoluteString): HTTP \(status)")
        }
        guard data.count <= maxBytes else {
            throw JobsError(.fetchFailed, "GET \(url.absoluteString): \(data.count) bytes, more than \(maxBytes)")
        }
        return [UInt8](data)
    }
}
