import Dispatch
import Foundation
import OMSCore
import OMSProtocol
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the echo handler saw, sent back as its JSON reply.
private struct Echo: Codable {
    var path: String
    var bodyHex: String
    var headerNames: [String]
    var trace: String?
}

/// State shared by every request, as the core's stores are: requests on different worker threads meet here.
private actor Tally {
    private(set) var count = 0
    func increment() -> Int {
        count += 1
        return count
    }
}

/// Echoes the request; `/v1/Waas/Sleep` first sleeps for the milliseconds in its body, `/v1/Waas/Hops`
/// first awaits a shared actor, a Dispatch queue and child tasks, the ways a real handler leaves its thread.
private final class TestHandler: WaasRequestHandler {
    let started = Mutex(0)
    let finished = Mutex(0)
    let tally = Tally()
    let queue = DispatchQueue(label: "TestHandler.store")

    func handle(_ request: WaasHTTPRequest) async -> WaasHTTPResponse {
        started.withLock { $0 += 1 }
        defer { finished.withLock { $0 += 1 } }
        if request.path == "/v1/Waas/Sleep" {
            let milliseconds = Int(String(decoding: request.body, as: UTF8.self)) ?? 0
            try? await Task.sleep(for: .milliseconds(milliseconds))
        }
        if request.path == "/v1/Waas/Hops" {
            _ = await tally.increment()
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
            let sum = await withTaskGroup(of: Int.self) { group in
                for part in 1...3 { group.addTask { part } }
                return await group.reduce(0, +)
            }
            precondition(sum == 6)
        }
        if request.path == "/v1/Waas/BadStatus" { return WaasHTTPResponse(status: 42, body: []) }
        let echo = Echo(
            path: request.path, bodyHex: Hex.encode(request.body), headerNames: request.message.headers.map(\.name),
            trace: request.header("X-TRACE"))
        return WaasHTTPResponse(
            status: 200, headers: [("X-Attestation-Document", "doc-\(request.body.count)")],
            body: [UInt8](try! JSONEncoder().encode(echo)))
    }
}

private let jwksBody = Array(#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1"}]}"#.utf8)

private let testDocuments = WellKnownDocuments { document in
    switch document {
    case .jwks: WellKnownResponse(body: jwksBody)
    case .openIDConfiguration: nil
    }
}

/// A plain URLSession for requests HTTPTransport does not make (GET, chunked bodies).
private func rawRequest(
    _ server: WaasHTTPServer, _ method: String, _ path: String, body: Data? = nil, stream: Data? = nil,
    headers: [String: String] = [:]
) async throws -> (status: Int, headers: [AnyHashable: Any], body: [UInt8]) {
    var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
    request.httpMethod = method
    request.httpBody = body
    if let stream { request.httpBodyStream = InputStream(data: stream) }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    return (http.statusCode, http.allHeaderFields, [UInt8](data))
}

private func expectOMSError(_ body: [UInt8], status: Int, code: Int = 7200, name: String = "InvalidRequest") throws {
    let wire = try JSONDecoder().decode(WaasError.WireBody.self, from: Data(body))
    #expect(wire.error == name)
    #expect(wire.code == code)
    #expect(wire.status == status)
    #expect(!wire.msg.isEmpty)
}

private func startServer(
    _ handler: TestHandler = TestHandler(), wellKnown: (any WellKnownProvider)? = testDocuments,
    _ configure: (inout WaasHTTPServer.Configuration) -> Void = { _ in }
) throws -> WaasHTTPServer {
    var configuration = WaasHTTPServer.Configuration()
    configure(&configuration)
    return try WaasHTTPServer.start(handler: handler, wellKnown: wellKnown, configuration: configuration)
}

/// A request to `server` fails before it is delivered (connection refused): the server takes no new
/// connection.
private func expectRefused(_ server: WaasHTTPServer, _ comment: Comment) async throws {
    do {
        _ = try await HTTPTransport(baseURL: server.baseURL, timeout: 5).send(
            WaasHTTPRequest(path: "/v1/WaasPublic/Status", body: []))
        Issue.record(comment)
    } catch let error as TransportError {
        #expect(!error.mayHaveBeenDelivered, "refused, not cut: \(error)")
    }
}

@Suite struct WaasHTTPServerTests {
    @Test func bindsAFreePortAndRefusesATakenOne() async throws {
        let server = try startServer()
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(throws: WaasHTTPServerError(.bindFailed, "")) {
            _ = try startServer { $0.port = server.port }
        }
        #expect(throws: WaasHTTPServerError(.invalidConfiguration, "")) {
            _ = try startServer { $0.threadPoolSize = 0 }
        }
        await server.stop()
    }

    @Test func routesBothPrefixesWithExactBodiesAndHeaders() async throws {
        let server = try startServer()
        let transport = HTTPTransport(baseURL: server.baseURL)
        // Every byte value, NUL included, and non-ASCII text.
        let body = [UInt8](0...255) + Array("ünïcødé ✓ 🔑".utf8) + [0, 0]
        for path in ["/v1/Waas/GetWallet", "/v1/WaasPublic/Status"] {
            let reply = try await transport.send(
                WaasHTTPRequest(path: path, headers: [("X-Trace", "t-1"), ("Api-Key", "pk")], body: body))
            #expect(reply.status == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: Data(reply.body))
            #expect(echo.path == path)
            #expect(echo.bodyHex == Hex.encode(body))
            #expect(echo.trace == "t-1")
            #expect(echo.headerNames.contains("X-Trace"))
            #expect(echo.headerNames.contains("Api-Key"))
            #expect(reply.header("x-attestation-document") == "doc-\(body.count)")
            #expect(reply.header("content-type") == "application/json")
        }
        let empty = try await transport.send(WaasHTTPRequest(path: "/v1/WaasPublic/Status", body: []))
        #expect(try JSONDecoder().decode(Echo.self, from: Data(empty.body)).bodyHex == "")
        // A body of exactly the limit arrives in many reads and is put back together byte for byte.
        var generator = SystemRandomNumberGenerator()
        let large = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let echoed = try await transport.send(WaasHTTPRequest(path: "/v1/Waas/Echo", body: large))
        #expect(echoed.status == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: Data(echoed.body)).bodyHex == Hex.encode(large))
        // A status HTTP cannot carry becomes a 500 with the OMS error body.
        let bad = try await transport.send(WaasHTTPRequest(path: "/v1/Waas/BadStatus", body: []))
        #expect(bad.status == 500)
        try expectOMSError(bad.body, status: 500, code: 7100, name: "InternalError")
        await server.stop()
    }

    @Test func headerNamesKeepTheirSpellingAndMatchWithoutCase() async throws {
        let server = try startServer()
        // URLSession normalises header names, so these requests are written by hand.
        for name in ["x-trace", "X-TRACE", "x-TrAcE"] {
            let body = Array("{\"n\":\"\(name)\"}".utf8)
            let reply = try await RawHTTP.exchange(
                port: server.port,
                Array("POST /v1/Waas/Echo HTTP/1.1\r\nHost: x\r\n\(name): v-\(name)\r\n".utf8)
                    + Array("Content-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body)
            #expect(reply.status == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: Data(reply.body))
            #expect(echo.trace == "v-\(name)")
            #expect(echo.headerNames.contains(name))
            #expect(echo.bodyHex == Hex.encode(body))
        }
        await server.stop()
    }

    @Test func oversizedBodyIsAnswered413() async throws {
        let handler = TestHandler()
        let server = try startServer(handler) { $0.maxBodyBytes = 1024 }
        let transport = HTTPTransport(baseURL: server.baseURL)
        let atLimit = try await transport.send(
            WaasHTTPRequest(path: "/v1/Waas/Echo", body: [UInt8](repeating: 7, count: 1024)))
        #expect(atLimit.status == 200)
        // Declared length over the limit: refused from the headers.
        let large = try await transport.send(
            WaasHTTPRequest(path: "/v1/Waas/Echo", body: [UInt8](repeating: 7, count: 1025)))
        #expect(large.status == 413)
        try expectOMSError(large.body, status: 413)
        // Chunked, with no declared length: counted as it arrives.
        let chunked = try await rawRequest(
            server, "POST", "/v1/Waas/Echo", stream: Data(repeating: 9, count: 64 << 10),
            headers: ["Content-Type": "application/json"])
        #expect(chunked.status == 413)
        try expectOMSError(chunked.body, status: 413)
        #expect(handler.started.withLock { $0 } == 1)
        await server.stop()
    }

    /// Chunked and eight times the default limit (twice what was read before the connection was cut):
    /// still answered 413 (issue 28).
    @Test func aLargeChunkedBodyIsAnswered413() async throws {
        let handler = TestHandler()
        let server = try startServer(handler)
        let chunked = try await rawRequest(
            server, "POST", "/v1/Waas/Echo", stream: Data(repeating: 9, count: 8 << 20),
            headers: ["Content-Type": "application/json"])
        #expect(chunked.status == 413)
        try expectOMSError(chunked.body, status: 413)
        #expect(handler.started.withLock { $0 } == 0)
        await server.stop()
    }

    @Test func aBodyOverTheDefaultLimitIsRefusedWithoutReadingIt() async throws {
        let handler = TestHandler()
        let server = try startServer(handler)
        let transport = HTTPTransport(baseURL: server.baseURL)
        do {
            let reply = try await transport.send(
                WaasHTTPRequest(path: "/v1/Waas/Echo", body: [UInt8](repeating: 1, count: (1 << 20) + 1)))
            #expect(reply.status == 413)
            try expectOMSError(reply.body, status: 413)
        } catch let error as TransportError {
            // The refusal came while the client was still sending, and the server closed the connection
            // (a loaded machine): refused without reading, which is what this test asks.
            #expect(error.message.contains("Broken pipe") || error.message.contains("reset"), "\(error)")
        }
        // The same over a hand-written request that sends all of its 8 MiB regardless.
        let body = [UInt8](repeating: 2, count: 8 << 20)
        let raw = try await RawHTTP.exchange(
            port: server.port,
            Array("POST /v1/Waas/Echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        #expect(raw.status == 413)
        try expectOMSError(raw.body, status: 413)
        #expect(handler.started.withLock { $0 } == 0)
        await server.stop()
    }

    @Test func unknownPathsAre404() async throws {
        let server = try startServer()
        let transport = HTTPTransport(baseURL: server.baseURL)
        for path in ["/v2/Waas/GetWallet", "/v1/Waas/", "/v1/Other/X", "/"] {
            let reply = try await transport.send(WaasHTTPRequest(path: path, body: Array("{}".utf8)))
            #expect(reply.status == 404, "\(path)")
            try expectOMSError(reply.body, status: 404, code: -2, name: "WebrpcBadRoute")
        }
        let get = try await rawRequest(server, "GET", "/index.html")
        #expect(get.status == 404)
        try expectOMSError(get.body, status: 404, code: -2, name: "WebrpcBadRoute")
        await server.stop()
    }

    @Test func wrongMethodsAre405() async throws {
        let server = try startServer()
        for method in ["GET", "PUT", "DELETE"] {
            let reply = try await rawRequest(server, method, "/v1/Waas/GetWallet")
            #expect(reply.status == 405, "\(method)")
            try expectOMSError(reply.body, status: 405, code: -3, name: "WebrpcBadMethod")
            #expect((reply.headers["Allow"] as? String) == "POST")
        }
        let post = try await rawRequest(server, "POST", "/.well-known/jwks.json", body: Data("{}".utf8))
        #expect(post.status == 405)
        try expectOMSError(post.body, status: 405, code: -3, name: "WebrpcBadMethod")
        await server.stop()
    }

    @Test func wellKnownRoutesGoToTheProvider() async throws {
        let server = try startServer()
        let jwks = try await rawRequest(server, "GET", "/.well-known/jwks.json")
        #expect(jwks.status == 200)
        #expect(jwks.body == jwksBody)
        #expect((jwks.headers["Content-Type"] as? String) == "application/json")
        // The provider publishes no discovery document.
        let discovery = try await rawRequest(server, "GET", "/.well-known/openid-configuration")
        #expect(discovery.status == 404)
        try expectOMSError(discovery.body, status: 404, code: -2, name: "WebrpcBadRoute")
        await server.stop()

        let html = WellKnownDocuments { document in
            WellKnownResponse(status: 200, contentType: "text/plain", body: Array(document.path.utf8))
        }
        let other = try startServer(wellKnown: html)
        let configuration = try await rawRequest(other, "GET", "/.well-known/openid-configuration")
        #expect(configuration.status == 200)
        #expect(configuration.body == Array("/.well-known/openid-configuration".utf8))
        #expect((configuration.headers["Content-Type"] as? String) == "text/plain")
        await other.stop()

        let none = try startServer(wellKnown: nil)
        let missing = try await rawRequest(none, "GET", "/.well-known/jwks.json")
        #expect(missing.status == 404)
        await none.stop()
    }

    @Test func thirtyTwoConcurrentRequestsAreAllAnswered() async throws {
        let handler = TestHandler()
        let server = try startServer(handler) { $0.threadPoolSize = 4 }
        let transport = HTTPTransport(baseURL: server.baseURL, maxConnections: 32)
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let path = ["/v1/Waas/Sleep", "/v1/Waas/Hops", "/v1/WaasPublic/Echo\(index)"][index % 3]
                    let body = index % 3 == 0 ? Array("20".utf8) : Array("item \(index)".utf8)
                    let reply = try await transport.send(WaasHTTPRequest(path: path, body: body))
                    let echo = try JSONDecoder().decode(Echo.self, from: Data(reply.body))
                    return reply.status == 200 && echo.path == path && echo.bodyHex == Hex.encode(body)
                }
            }
            var count = 0
            for try await ok in group where ok { count += 1 }
            return count
        }
        #expect(answered == 32)
        #expect(handler.finished.withLock { $0 } == 32)
        #expect(await handler.tally.count == 11)
        await server.stop()
    }

    @Test func gracefulStopFinishesInFlightWorkThenRefusesConnections() async throws {
        let handler = TestHandler()
        let server = try startServer(handler)
        let slow = Task {
            try await HTTPTransport(baseURL: server.baseURL).send(
                WaasHTTPRequest(path: "/v1/Waas/Sleep", body: Array("10000".utf8)))
        }
        while handler.started.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let stopping = Task { await server.stop(grace: .seconds(60)) }
        while !server.isDraining { try await Task.sleep(for: .milliseconds(5)) }
        // Draining: new connections are refused while the slow request (10 s, so a starved test pool still
        // gets here first) still runs.
        #expect(handler.finished.withLock { $0 } == 0)
        try await expectRefused(server, "a draining server accepted a new connection")
        let reply = try await slow.value
        #expect(reply.status == 200)
        await stopping.value
        #expect(handler.finished.withLock { $0 } == 1)
        try await expectRefused(server, "a stopped server answered")
    }

    @Test func handlersStillRunningAfterTheGracePeriodGet503() async throws {
        let handler = TestHandler()
        let server = try startServer(handler)
        let slow = Task {
            try await HTTPTransport(baseURL: server.baseURL).send(
                WaasHTTPRequest(path: "/v1/Waas/Sleep", body: Array("60000".utf8)))
        }
        while handler.started.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let clock = ContinuousClock()
        let elapsed = await clock.measure { await server.stop(grace: .milliseconds(200)) }
        // The stop did not wait for the 60 s handler (a loose bound: a loaded CI machine is slow, not that slow).
        #expect(elapsed < .seconds(30))
        let reply = try await slow.value
        #expect(reply.status == 503)
        try expectOMSError(reply.body, status: 503, code: 7100, name: "InternalError")
    }

    @Test(.timeLimit(.minutes(1))) func stoppingTwiceIsSafe() async throws {
        let server = try startServer()
        let reply = try await HTTPTransport(baseURL: server.baseURL).send(
            WaasHTTPRequest(path: "/v1/Waas/Echo", body: Array("before".utf8)))
        #expect(reply.status == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: Data(reply.body)).bodyHex == Hex.encode(Array("before".utf8)))
        async let first: Void = server.stop()
        async let second: Void = server.stop()
        _ = await (first, second)
        await server.stop()
        await server.waitUntilStopped()
        try await expectRefused(server, "a server stopped three times answered")
    }

    @Test(.timeLimit(.minutes(1))) func runUntilSignalledReturnsWhenStoppedAnotherWay() async throws {
        let server = try startServer()
        let running = Task { await server.runUntilSignalled([SIGUSR1], grace: .seconds(1)) }
        try await Task.sleep(for: .milliseconds(50))
        await server.stop()
        await running.value
        try await expectRefused(server, "runUntilSignalled returned while the server still answered")
    }

    @Test func oversizedHeadersAreRefused() async throws {
        let server = try startServer { $0.connectionMemoryBytes = 8192 }
        let reply = try await HTTPTransport(baseURL: server.baseURL).send(
            WaasHTTPRequest(
                path: "/v1/Waas/Echo", headers: [("X-Big", String(repeating: "a", count: 16 << 10))], body: []))
        // libmicrohttpd's own reply: Request Header Fields Too Large.
        #expect(reply.status == 431)
        await server.stop()
    }

    @Test func aSignalStopsTheServer() async throws {
        // Ignored first, so a signal sent before the sources exist is harmless to the test process.
        signal(SIGUSR2, SIG_IGN)
        let server = try startServer()
        let running = Task { await server.runUntilSignalled([SIGUSR2], grace: .seconds(1)) }
        let stopped = StopFlag()
        let watcher = Task {
            await server.waitUntilStopped()
            stopped.value.store(true, ordering: .releasing)
        }
        var sent = 0
        while sent < 100, !stopped.value.load(ordering: .acquiring) {
            try await Task.sleep(for: .milliseconds(50))
            kill(getpid(), SIGUSR2)
            sent += 1
        }
        await running.value
        await watcher.value
        let isStopped = stopped.value.load(ordering: .acquiring)
        #expect(isStopped)
        #expect(sent < 100)
    }
}

/// A blocking HTTP/1.1 exchange over a plain socket, run on a Dispatch thread (never a cooperative one,
/// which the server's handler tasks need), for requests URLSession would rewrite.
private enum RawHTTP {
    struct Reply {
        var status: Int
        var head: String
        var body: [UInt8]
    }

    static func exchange(port: Int, _ request: [UInt8]) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port: port, request) })
            }
        }
    }

    struct Failure: Error {
        let what: String
    }

    private static func blockingExchange(port: Int, _ request: [UInt8]) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(what: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(what: "connect") }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { break }  // the server may answer and close before reading everything
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            received += buffer[0..<n]
        }
        guard let split = find([13, 10, 13, 10], in: received) else { throw Failure(what: "no reply head") }
        let head = String(decoding: received[..<split], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Reply(status: status, head: head, body: Array(received[(split + 4)...]))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}

/// Set once the server reports it stopped.
private final class StopFlag: Sendable {
    let value = Atomic(false)
}
