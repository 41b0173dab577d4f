import Foundation

extension WaasHTTPServer {
    /// Where the server listens and the limits it enforces.
    public struct Configuration: Sendable {
        /// The address to bind: an IPv4 or IPv6 literal, or a name that resolves to one.
        public var host: String
        /// The TCP port; 0 picks a free one (read it back from `WaasHTTPServer.port`).
        public var port: Int
        /// Worker threads in libmicrohttpd's pool; each serves many connections through epoll.
        public var threadPoolSize: Int
        /// The largest request body accepted; a larger one is answered 413.
        public var maxBodyBytes: Int
        /// Memory per connection for the request line, the headers and the read buffer
        /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); headers beyond it are answered 431.
        public var connectionMemoryBytes: Int
        /// Seconds a connection may stay idle before it is closed, while its headers or body are being
        /// read as between requests; 0 keeps it forever. Short, so a client that opens connections and
        /// sends nothing (slowloris) cannot hold them long.
        public var connectionTimeoutSeconds: Int
        /// Connections served at once; more are refused at accept.
        public var maxConnections: Int
        /// Connections one client address may hold at once (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`); more
        /// are closed at accept, so one client cannot take every slot of ``maxConnections``; 0: no cap.
        public var maxConnectionsPerClient: Int
        /// The listen queue length given to `listen(2)`.
        public var listenBacklog: Int

        /// The default pool size: two threads per core, at least four.
        public static var defaultThreadPoolSize: Int { max(4, ProcessInfo.processInfo.activeProcessorCount * 2) }

        /// Defaults: 127.0.0.1, a free port, `defaultThreadPoolSize` threads, 1 MiB bodies, 64 KiB per
        /// connection, 10 s idle timeout, 1024 connections, 128 per client address (a job keeps 16; several
        /// jobs and commands on one host share its address), a listen queue of 512.
        public init(
            host: String = "127.0.0.1", port: Int = 0, threadPoolSize: Int = Configuration.defaultThreadPoolSize,
            maxBodyBytes: Int = 1 << 20, connectionMemoryBytes: Int = 64 << 10, connectionTimeoutSeconds: Int = 10,
            maxConnections: Int = 1024, maxConnectionsPerClient: Int = 128, listenBacklog: Int = 512
        ) {
            self.host = host
            self.port = port
            self.threadPoolSize = threadPoolSize
            self.maxBodyBytes = maxBodyBytes
            self.connectionMemoryBytes = connectionMemoryBytes
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.maxConnections = maxConnections
            self.maxConnectionsPerClient = maxConnectionsPerClient
            self.listenBacklog = listenBacklog
        }

        /// Checks every value, naming the first one out of range.
        func validate() throws(WaasHTTPServerError) {
            func check(_ ok: Bool, _ what: String) throws(WaasHTTPServerError) {
                if !ok { throw WaasHTTPServerError(.invalidConfiguration, what) }
            }
            try check((0...65535).contains(port), "port \(port) is not in 0...65535")
            try check((1...1024).contains(threadPoolSize), "threadPoolSize \(threadPoolSize) is not in 1...1024")
            try check((0...(1 << 30)).contains(maxBodyBytes), "maxBodyBytes \(maxBodyBytes) is not in 0...1 GiB")
            try check(
                connectionMemoryBytes >= 4096, "connectionMemoryBytes \(connectionMemoryBytes) is below 4096")
            try check(
                (0...Int(UInt32.max)).contains(connectionTimeoutSeconds),
                "connectionTimeoutSeconds \(connectionTimeoutSeconds) is out of range")
            try check(
                (1...Int(Int32.max)).contains(maxConnections), "maxConnections \(maxConnections) is out of range")
            try check(
                (0...Int(Int32.max)).contains(maxConnectionsPerClient),
                "maxConnectionsPerClient \(maxConnectionsPerClient) is out of range")
            try check((1...65535).contains(listenBacklog), "listenBacklog \(listenBacklog) is not in 1...65535")
        }
    }
}
