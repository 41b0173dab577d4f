import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP transport: `POST <baseURL><path>` through URLSession, with a per-request timeout.
public final class HTTPTransport: WaasTransport {
    public let baseURL: URL
    private let session: URLSession

    /// - Parameters:
    ///   - baseURL: the service root, e.g. `http://127.0.0.1:8787`.
    ///   - timeout: seconds to wait for a reply.
    ///   - maxConnections: connections kept to the host, so concurrent callers are not serialised.
    public init(baseURL: URL, timeout: TimeInterval = 30, maxConnections: Int = 16) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = maxConnections
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
        guard let url = URL(string: baseURL.absoluteString.trimmingTrailingSlash() + request.path) else {
            throw TransportError(mayHaveBeenDelivered: false, message: "bad URL for \(request.path)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        for (name, value) in request.message.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = Data(request.body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            // Refused or unreachable before sending: safe to retry. Otherwise the outcome is in doubt.
            let notSent: Set<URLError.Code> = [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .badURL]
            throw TransportError(
                mayHaveBeenDelivered: !notSent.contains(error.code),
                message: "\(request.path): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(mayHaveBeenDelivered: true, message: "\(request.path): not an HTTP reply")
        }
        var headers: [(name: String, value: String)] = []
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers.append((key, value)) }
        }
        return WaasHTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
    }
}

extension String {
    fileprivate func trimmingTrailingSlash() -> String {
        hasSuffix("/") ? String(dropLast()) : self
    }
}
