import CPostgres
import Foundation

/// One connection to PostgreSQL through libpq: statements with parameters (`$1`, `$2`, ...), results as
/// text, transactions. Used from one thread at a time (``PostgresQueue`` gives it to async code).
///
/// A lost connection (a server restart, `pg_terminate_backend`) is reported as ``PostgresError`` with
/// `isConnectionLost`; the next statement reconnects first (`PQreset`). Design note: libpq's own
/// blocking calls on a dedicated queue, over a wire-protocol client of our own: libpq is the reference
/// client (TLS, authentication methods, service files, every URL option), and it is a Debian package.
public final class PostgresConnection {
    private var connection: OpaquePointer?
    /// The URL without its password, for messages.
    public let displayURL: String
    /// Statements run on every new session: after connecting and after each reconnection.
    private let sessionSetup: String?

    /// Connects to `url` (`postgresql://user@host:port/db`, or any libpq connection string) and runs
    /// `sessionSetup` (such as `SET search_path TO ...`), again after every reconnection.
    ///
    /// - Throws: ``PostgresError`` with libpq's reason when the server cannot be reached or refuses.
    public init(url: String, sessionSetup: String? = nil) throws(PostgresError) {
        displayURL = Self.withoutPassword(url)
        self.sessionSetup = sessionSetup
        connection = PQconnectdb(url)
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.message(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            self.connection = nil
            throw PostgresError(message: "cannot connect to \(displayURL): \(message)", isConnectionLost: true)
        }
        // Notices (such as "there is no transaction in progress") are not errors; keep them off stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        if let sessionSetup { try runScript(sessionSetup) }
    }

    deinit { PQfinish(connection) }

    /// The server process serving this connection (for `pg_terminate_backend` in tests and for logs).
    public var backendPID: Int32 { PQbackendPID(connection) }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, ... and returns its rows.
    ///
    /// - Throws: ``PostgresError`` with the server's SQLSTATE, or `isConnectionLost` when the connection
    ///   broke (whether the statement was applied is then unknown).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresRows {
        try reconnectIfLost()
        let texts = parameters.map(\.text)
        let result: OpaquePointer? = withCStrings(texts) { pointers in
            PQexecParams(connection, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
        }
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw error(result) }
        guard let result else { return PostgresRows(columns: [], rows: [], affected: 0) }
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        var rows: [[String?]] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            rows.append(
                (0..<columnCount).map { column in
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                })
        }
        return PostgresRows(columns: columns, rows: rows, affected: Int(String(cString: PQcmdTuples(result))) ?? 0)
    }

    /// Runs `sql` once per parameter list of `rows`, with the effect of running them one after another:
    /// they are sent in libpq's pipeline mode, ``pipelineRows`` at a time, and their results read back
    /// together, so a batch costs one round trip to the server instead of one a row. Outside a transaction
    /// each batch is one (the pipeline's implicit one); a failure stops the rest of its batch (not applied)
    /// and later batches are not sent.
    ///
    /// - Throws: ``PostgresError`` of the first statement that failed, as ``execute(_:_:)``.
    public func executeEach(_ sql: String, _ rows: [[PostgresValue]]) throws(PostgresError) {
        if rows.count <= 1 {
            if let row = rows.first { try execute(sql, row) }
            return
        }
        try reconnectIfLost()
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Self.pipelineRows)
            try pipeline(sql, rows[start..<end])
            start = end
        }
    }

    /// Statements sent at once by ``executeEach(_:_:)``: few enough that their replies never fill the
    /// socket buffers while the client is still sending (libpq's pipeline-mode deadlock).
    public static let pipelineRows = 256

    private func pipeline(_ sql: String, _ rows: ArraySlice<[PostgresValue]>) throws(PostgresError) {
        guard PQenterPipelineMode(connection) == 1 else { throw error(nil) }
        defer { PQexitPipelineMode(connection) }
        var unsent: PostgresError?
        for row in rows {
            let sent = withCStrings(row.map(\.text)) { pointers in
                PQsendQueryParams(connection, sql, Int32(row.count), nil, pointers, nil, nil, 0)
            }
            if sent != 1 {
                unsent = error(nil)
                break
            }
        }
        guard PQpipelineSync(connection) == 1 else { throw unsent ?? error(nil) }
        var failure: PostgresError?
        while true {
            guard let result = PQgetResult(connection) else {
                // NULL ends each statement's results; on a broken connection it is all there is.
                if PQstatus(connection) != CONNECTION_OK { throw error(nil) }
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_PIPELINE_ABORTED
                && failure == nil
            {
                failure = error(result)
            }
            PQclear(result)
        }
        if let failure = failure ?? unsent { throw failure }
    }

    /// Runs `sql`, one or more statements without parameters (a schema migration, a session setting).
    ///
    /// - Throws: ``PostgresError`` as ``execute(_:_:)``.
    public func executeScript(_ sql: String) throws(PostgresError) {
        try reconnectIfLost()
        try runScript(sql)
    }

    private func runScript(_ sql: String) throws(PostgresError) {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw error(result) }
    }

    private func error(_ result: OpaquePointer?) -> PostgresError {
        let lost = PQstatus(connection) != CONNECTION_OK
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        var message = result.map { Self.message(PQresultErrorMessage($0)) } ?? ""
        if message.isEmpty { message = Self.message(PQerrorMessage(connection)) }
        return PostgresError(sqlState: state, message: message, isConnectionLost: lost)
    }

    /// Runs `body` in a transaction (`BEGIN` ... `COMMIT`), rolled back when it throws.
    @discardableResult
    public func transaction<T>(
        isolation: String = "READ COMMITTED", _ body: () throws -> T
    ) throws -> T {
        try execute("BEGIN ISOLATION LEVEL \(isolation)")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if PQstatus(connection) == CONNECTION_OK { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    private func reconnectIfLost() throws(PostgresError) {
        guard PQstatus(connection) != CONNECTION_OK else { return }
        PQreset(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(
                message: "cannot reconnect to \(displayURL): \(Self.message(PQerrorMessage(connection)))",
                isConnectionLost: true)
        }
        if let sessionSetup { try runScript(sessionSetup) }
    }

    static func message(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }

    /// `url` with the password of its user part replaced by `***`: what messages and logs may show.
    public static func withoutPassword(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url
        }
        let user = url[scheme.upperBound..<at]
        guard let colon = user.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

/// Calls `body` with C strings for `texts` (NULL for nil), valid for the call.
private func withCStrings<R>(_ texts: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let storage: [UnsafeMutablePointer<CChar>?] = texts.map { $0.map { strdup($0) } ?? nil }
    defer { for pointer in storage { free(pointer) } }
    return body(storage.map { $0.map { UnsafePointer($0) } })
}
