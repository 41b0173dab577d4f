#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound, listening TCP socket, made here rather than by libmicrohttpd so that port 0 can be read back
/// with `getsockname(2)` and bind errors carry their errno text.
struct ListenSocket {
    let descriptor: Int32
    let port: Int

    init(host: String, port: Int, backlog: Int) throws(WaasHTTPServerError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw WaasHTTPServerError(.bindFailed, "cannot resolve \(host):\(port): \(reason)")
        }
        defer { freeaddrinfo(list) }
        let info = first.pointee

        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let fd = socket(info.ai_family, type, 0)
        guard fd >= 0 else { throw Self.failure("socket", host, port) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let error = Self.failure("bind", host, port)
            close(fd)
            throw error
        }
        guard listen(fd, Int32(backlog)) == 0 else {
            let error = Self.failure("listen", host, port)
            close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = Self.failure("getsockname", host, port)
            close(fd)
            throw error
        }
        // sin_port and sin6_port sit at the same offset, in network byte order.
        let boundPort = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        descriptor = fd
        self.port = Int(boundPort)
    }

    private static func failure(_ call: String, _ host: String, _ port: Int) -> WaasHTTPServerError {
        let reason = String(cString: strerror(errno))
        return WaasHTTPServerError(.bindFailed, "\(call) for \(host):\(port) failed: \(reason)")
    }
}
