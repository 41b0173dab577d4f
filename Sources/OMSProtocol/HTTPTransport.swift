import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP transport: `POST <baseURL><path>` through URLSession, with a per-request timeout.
///
/// Cancelling the calling task ends its wait at once (`CancellationError`) and never calls
/// `URLSessionTask.cancel`: the cancellation handler runs under the Swift task's status lock, and
/// FoundationNetworking's `cancel` waits for the session's queue, whose thread delivering a failure
/// (`didFailWithError`) needs that lock, a deadlock when the service dies with requests in flight
/// (issue 28); a `cancel` from another queue instead races the task's completion and traps in
/// FoundationNetworking's task registry. An abandoned request ends by itself: its reply or the timeout.
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

    /// Sends one request.
    /// - Throws: `TransportError` when no reply arrived (``TransportError/isUnreachable`` when the service
    ///   could not be reached at all, so nothing was sent); `CancellationError` when the calling task was
    ///   cancelled.
    public func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
        let root = baseURL.absoluteString.trimmingTrailingSlash()
        guard let url = URL(string: root + request.path) else {
            throw TransportError(mayHaveBeenDelivered: false, message: "bad URL for \(request.path)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        for (name, value) in request.message.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = Data(request.body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await perform(urlRequest)
        } catch let error as URLError {
            if error.code == .cancelled, Task.isCancelled { throw CancellationError() }
            // Refused or unreachable before sending: safe to retry. Otherwise the outcome is in doubt.
            let notSent: Set<URLError.Code> = [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .badURL]
            if notSent.contains(error.code) {
                throw TransportError(
                    mayHaveBeenDelivered: false, isUnreachable: true,
                    message: "the core at \(root) is unreachable (\(request.path): \(error.localizedDescription))")
            }
            throw TransportError(
                mayHaveBeenDelivered: true, message: "\(request.path): \(error.localizedDescription)")
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

    /// One data task, awaited. Cancelling the caller resumes it at once with `CancellationError`; the
    /// URLSession task is left to end by itself (its reply, or the request timeout), never cancelled.
    private func perform(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let reply = PendingReply()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard reply.wait(continuation) else { return }
                session.dataTask(with: request) { data, response, error in
                    if let response, error == nil {
                        reply.finish(.success((data ?? Data(), response)))
                    } else {
                        reply.finish(.failure(error ?? URLError(.badServerResponse)))
                    }
                }.resume()
            }
        } onCancel: {
            reply.finish(.failure(CancellationError()))
        }
    }
}

/// The caller waiting for one reply: resumed exactly once, by the reply or by a cancellation, whichever
/// comes first; the other is dropped.
private final class PendingReply: Sendable {
    typealias Reply = Result<(Data, URLResponse), any Error>

    private enum State {
        case idle
        case waiting(CheckedContinuation<(Data, URLResponse), any Error>)
        case finished(Reply)
        case delivered
    }

    private let state = Mutex(State.idle)

    /// Parks the caller; false (and `continuation` already resumed) when the reply came first, which is
    /// how a cancellation before the request started ends it.
    func wait(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) -> Bool {
        let early: Reply? = state.withLock { state in
            guard case .finished(let reply) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .delivered
            return reply
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Delivers `reply` to the caller, unless another was delivered first.
    func finish(_ reply: Reply) {
        let waiting: CheckedContinuation<(Data, URLResponse), any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .finished(reply)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .finished, .delivered:
                return nil
            }
        }
        waiting?.resume(with: reply)
    }
}

extension String {
    fileprivate func trimmingTrailingSlash() -> String {
        hasSuffix("/") ? String(dropLast()) : self
    }
}
