import Foundation

/// `walletops-bench delay-proxy --to HOST:PORT [--port P] [--delay-ms D]`: a test-only TCP proxy on
/// loopback that forwards to `walletops core serve` and delivers every chunk D ms (default 10) after it
/// arrived, in each direction: a request and its reply cross 2 D of added round trip (20 ms), whatever
/// the concurrency, since the delay is a deadline per chunk and not a pause of the stream. Prints its
/// URL (`http://127.0.0.1:P`) on the first line, then serves until killed.
///
/// Used instead of netem in a network namespace: it needs no privileges, and the delay is what the
/// latency-hiding case is about (the core's work and the client's are unchanged).
enum DelayProxy {
    static func run(_ arguments: [String]) throws -> Never {
        let delay = Double(AccessBench.option("--delay-ms", in: arguments) ?? 10) * 1000
        let port = AccessBench.option("--port", in: arguments) ?? 0
        guard let target = StageBench.text("--to", in: arguments), let colon = target.lastIndex(of: ":"),
            let targetPort = UInt16(target[target.index(after: colon)...])
        else { throw BenchError("delay-proxy: --to HOST:PORT is required") }
        let targetHost = String(target[..<colon])

        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: UInt16(port))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            throw BenchError("delay-proxy: cannot listen on 127.0.0.1:\(port): errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        FileHandle.standardOutput.write(Data("http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))\n".utf8))
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var remote = sockaddr_in()
            remote.sin_family = sa_family_t(AF_INET)
            remote.sin_port = targetPort.bigEndian
            inet_pton(AF_INET, targetHost == "localhost" ? "127.0.0.1" : targetHost, &remote.sin_addr)
            let connected = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            for fd in [client, upstream] {
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            }
            let connection = Connection(client: client, upstream: upstream)
            DelayedPipe(from: client, to: upstream, delay: delay).start { connection.finished() }
            DelayedPipe(from: upstream, to: client, delay: delay).start { connection.finished() }
        }
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    /// Closes both sockets once both directions have ended.
    final class Connection: @unchecked Sendable {
        let client: Int32
        let upstream: Int32
        let lock = NSLock()
        var open = 2

        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }

        func finished() {
            lock.lock()
            open -= 1
            let last = open == 0
            lock.unlock()
            if last {
                close(client)
                close(upstream)
            }
        }
    }

    /// One direction: a reader stamps each chunk with its delivery time, a writer delivers it then.
    final class DelayedPipe: @unchecked Sendable {
        let from: Int32
        let to: Int32
        let delay: Double
        let condition = NSCondition()
        /// (deliver at, in microseconds; the bytes, or nil for the end of the stream).
        var queue: [(Double, [UInt8]?)] = []

        init(from: Int32, to: Int32, delay: Double) {
            self.from = from
            self.to = to
            self.delay = delay
        }

        func start(onFinish: @escaping @Sendable () -> Void) {
            Thread.detachNewThread { self.readLoop() }
            Thread.detachNewThread {
                self.writeLoop()
                onFinish()
            }
        }

        func readLoop() {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(from, &buffer, buffer.count)
                let chunk: [UInt8]? = count > 0 ? Array(buffer[0..<count]) : nil
                condition.lock()
                queue.append((Measure.now() + delay, chunk))
                condition.signal()
                condition.unlock()
                if chunk == nil { return }
            }
        }

        func writeLoop() {
            var head = 0
            while true {
                condition.lock()
                while head >= queue.count { condition.wait() }
                let (deadline, chunk) = queue[head]
                head += 1
                if head > 1024 {  // drop delivered chunks now and then
                    queue.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                let wait = deadline - Measure.now()
                if wait > 0 { usleep(useconds_t(wait)) }
                guard let chunk else {
                    shutdown(to, Int32(SHUT_WR))
                    return
                }
                var sent = 0
                while sent < chunk.count {
                    let written = chunk[sent...].withUnsafeBytes { write(to, $0.baseAddress, $0.count) }
                    if written <= 0 {
                        shutdown(from, Int32(SHUT_RD))
                        shutdown(to, Int32(SHUT_WR))
                        return
                    }
                    sent += written
                }
            }
        }
    }
}
