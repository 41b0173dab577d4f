internal import CMicroHTTPD

/// libmicrohttpd's callbacks: C function pointers that capture nothing and reach the server's engine
/// through the `cls` pointer it was started with (unretained: the server keeps the engine alive until
/// `MHD_stop_daemon` has returned).
enum MHDCallbacks {
    static var access: MHD_AccessHandlerCallback {
        { cls, connection, url, method, _, uploadData, uploadDataSize, contextSlot in
            guard let cls, let connection, let url, let method, let uploadDataSize, let contextSlot else {
                return .NO
            }
            return Unmanaged<HTTPServerEngine>.fromOpaque(cls).takeUnretainedValue().access(
                connection: connection, url: url, method: method, uploadData: uploadData,
                uploadDataSize: uploadDataSize, contextSlot: contextSlot)
        }
    }

    static var completed: MHD_RequestCompletedCallback {
        { cls, _, contextSlot, _ in
            guard let cls else { return }
            Unmanaged<HTTPServerEngine>.fromOpaque(cls).takeUnretainedValue().completed(contextSlot: contextSlot)
        }
    }

    /// Appends one request header to the `ConnectionContext` behind `cls`, name spelled as sent.
    static var collectHeader: MHD_KeyValueIterator {
        { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let context = ConnectionContext.from(cls)
            context.headers.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }
    }
}
